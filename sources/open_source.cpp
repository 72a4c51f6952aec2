// The source registry (see open_source.hpp): one table of source kinds, tried in order.
#include "sources/open_source.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string_view>

#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/format.hpp"
#include "sources/generator.hpp"
#include "sources/input_description.hpp"
#include "sources/input_file.hpp"
#include "sources/raw_file.hpp"
#include "sources/sigmf.hpp"
#if PRISM_HAVE_SNDFILE
#include "sources/sndfile_source.hpp"
#endif
#if PRISM_HAVE_PORTAUDIO
#include "sources/portaudio_source.hpp"
#endif
#if PRISM_HAVE_SOAPYSDR
#include "sources/soapysdr_source.hpp"
#endif
#if PRISM_HAVE_ZMQ
#include "sources/zmq_source.hpp"
#endif

namespace prism {

namespace {

using json = nlohmann::json;

constexpr std::string_view kSoundFileExtensions[] = {
    ".wav", ".flac", ".ogg", ".oga", ".opus", ".aif", ".aiff",
    ".aifc", ".au", ".snd", ".caf", ".w64", ".rf64"};

bool is_sound_file_path(const std::string& input) {
  const std::string ext = lower_extension(input);
  return std::find(std::begin(kSoundFileExtensions), std::end(kSoundFileExtensions), ext) !=
         std::end(kSoundFileExtensions);
}

// An input that states its own format, rate and channels (SigMF, sound files, the generator)
// takes no option that contradicts them: a user who passes one expects it to act, and it
// cannot. Options that agree are accepted, so scripts may pass them always.
void check_self_describing(const std::string& input, std::string_view kind, const StreamInfo& info,
                           const SourceOptions& options) {
  const std::string where = input + " (" + std::string(kind) + ")";
  const std::string hint = kind == "generator"
                               ? "; set it in the spec, e.g. gen:rate=...,format=..."
                               : "; " + options.name("format") + ", " + options.name("sample_rate") + " and " +
                                     options.name("channels") + " are for raw input";
  if (options.big_endian)
    throw UsageError(options.name("format") + " " + std::string(format_name(info.format)) + "_be: a byte order is for raw input; " +
                     where + " states its own");
  if (options.format && *options.format != info.format)
    throw UsageError(options.name("format") + " " + std::string(format_name(*options.format)) +
                     " contradicts " + where + ", which is " +
                     std::string(format_name(info.format)) + hint);
  if (options.sample_rate && *options.sample_rate != info.sample_rate)
    throw UsageError(options.name("sample_rate") + " " + number_text(*options.sample_rate) + " contradicts " + where +
                     ", which is at " + number_text(info.sample_rate) + " Hz" + hint);
  if (options.channels != 1 && options.channels != info.channels)
    throw UsageError(options.name("channels") + " " + std::to_string(options.channels) + " contradicts " + where +
                     ", which has " + std::to_string(info.channels) + hint);
}

template <typename ConcreteSource>
std::unique_ptr<Source> finish_self_describing(std::unique_ptr<ConcreteSource> source,
                                               const std::string& input, std::string_view kind,
                                               const SourceOptions& options) {
  check_self_describing(input, kind, source->info(), options);
  if (options.center_frequency != 0) source->set_center_frequency(options.center_frequency);
  return source;
}

// ---- the source kinds -----------------------------------------------------------------------

std::unique_ptr<Source> open_generator(const std::string& input, const SourceOptions& options) {
  return finish_self_describing(std::make_unique<GeneratorSource>(parse_generator_spec(input)),
                                input, "generator", options);
}

json describe_generator(const Source& source) {
  const auto& generator = dynamic_cast<const GeneratorSource&>(source);
  return {{"container", "generator"},
          {"spec", generator.spec().to_string()},
          {"description", generator.spec().describe()},
          {"file_size", nullptr}};
}

std::unique_ptr<Source> open_stdin(const std::string&, const SourceOptions& options) {
  return RawSource::open_stdin(options);
}

json describe_raw(const Source& source) {
  const auto& raw = dynamic_cast<const RawSource&>(source);
  json d = {{"container", raw.describe() == "stdin" ? "stdin" : "raw"}};
  if (const auto size = raw.size_bytes())
    d["file_size"] = *size;
  else
    d["file_size"] = nullptr;
  return d;
}

}  // namespace

void TruncationPolicy::apply(const std::string& name, const std::string& reason) const {
  if (strict) throw InputError(name, reason);
  if (warn) warn(name + ": " + reason + "; read up to the last whole sample");
}

namespace {

std::unique_ptr<Source> open_sigmf(const std::string& input, const SourceOptions& options) {
  return finish_self_describing(std::make_unique<SigmfSource>(input, options.truncation), input, "SigMF", options);
}

json describe_sigmf_source(const Source& source) {
  return describe_sigmf(dynamic_cast<const SigmfSource&>(source).recording());
}

std::unique_ptr<Source> open_sound_file(const std::string& input, const SourceOptions& options) {
#if PRISM_HAVE_SNDFILE
  return finish_self_describing(std::make_unique<SndfileSource>(input, options.truncation), input, "sound file",
                                options);
#else
  (void)options;
  throw InputError(input, "is a sound file, but this prism was built without libsndfile "
                          "(install libsndfile1-dev and rebuild)");
#endif
}

json describe_sound_file_source(const Source& source) {
#if PRISM_HAVE_SNDFILE
  return describe_sound_file(dynamic_cast<const SndfileSource&>(source));
#else
  (void)source;
  return json::object();
#endif
}

std::unique_ptr<Source> open_raw_file(const std::string& input, const SourceOptions& options) {
  return RawSource::open_file(input, options);
}

// audio: inputs (sources/portaudio_source.hpp); without PortAudio they say why they fail.
bool is_audio_device_input(const std::string& input) {
  return input == "audio" || input.rfind("audio:", 0) == 0;
}

bool is_sdr_device_input(const std::string& input) { return input == "sdr" || input.rfind("sdr:", 0) == 0; }

// The checks every input's options get before its kind opens it: a centre frequency that is a
// number, and no SDR settings for an input other than an SDR, which would ignore them.
void check_options_for(const std::string& input, const SourceOptions& options) {
  if (!std::isfinite(options.center_frequency))
    throw UsageError(options.name("center_frequency") + " must be a finite number of Hz");
  if (!is_sdr_device_input(input) && options.has_sdr_settings())
    throw UsageError(options.name("gain") + ", " + options.name("antenna") + ", " + options.name("sdr_channel") + ", " +
                     options.name("sdr_stream_args") + " and " + options.name("sdr_open_timeout_s") +
                     " are for SDR input (sdr:...), not for " + input + " (" + source_kind_name(input) + ")");
}

std::unique_ptr<Source> open_checked_audio_device(const std::string& input, const SourceOptions& options,
                                                  unsigned channels, unsigned block_frames) {
#if PRISM_HAVE_PORTAUDIO
  if (options.format && (*options.format != SampleFormat::f32 || options.big_endian))
    throw UsageError(options.name("format") + " " + std::string(format_name(*options.format)) +
                     (options.big_endian ? "_be" : "") + " contradicts " + input +
                     " (an audio device delivers f32 in the machine's byte order)");
  PortAudioInputOptions audio;
  audio.device = input.size() > 6 ? input.substr(6) : std::string();
  audio.sample_rate = options.sample_rate.value_or(0.0);
  audio.channels = channels;
  audio.block_frames = block_frames;
  audio.center_frequency = options.center_frequency;
  audio.rate_name = options.name("sample_rate");
  return std::make_unique<PortAudioSource>(audio);
#else
  (void)options, (void)channels, (void)block_frames;
  throw InputError(input, "is an audio device, but this prism was built without PortAudio "
                          "(install portaudio19-dev and rebuild)");
#endif
}

std::unique_ptr<Source> open_audio_device(const std::string& input, const SourceOptions& options) {
  return open_checked_audio_device(input, options, options.channels == 1 ? 0 : options.channels, 0);
}

json describe_audio_device(const Source& source) {
  return {{"container", "audio device"}, {"device", source.describe()}, {"file_size", nullptr}};
}

// sdr: inputs (sources/soapysdr_source.hpp; is_sdr_device_input above); without SoapySDR they
// say why they fail.
std::unique_ptr<Source> open_sdr_device(const std::string& input, const SourceOptions& options) {
#if PRISM_HAVE_SOAPYSDR
  if (options.channels != 1)
    throw UsageError(options.name("channels") + " " + std::to_string(options.channels) + " contradicts " + input +
                     ": an SDR input is one RX channel (pick it with " + options.name("sdr_channel") + ")");
  if (options.big_endian)
    throw UsageError(options.name("format") + " " + std::string(format_name(options.format.value_or(SampleFormat::cf32))) +
                     "_be contradicts " + input + ": an SDR delivers samples in the machine's byte order");
  SdrInputOptions sdr;
  sdr.device_args = input.size() > 4 ? input.substr(4) : std::string();
  sdr.format = options.format;
  sdr.sample_rate = options.sample_rate.value_or(0.0);
  if (options.center_frequency != 0) sdr.center_frequency = options.center_frequency;
  sdr.gain = options.gain;
  sdr.antenna = options.antenna.value_or("");
  sdr.field_namer = options.field_namer;
  sdr.channel = options.sdr_channel.value_or(0);
  sdr.stream_args = options.sdr_stream_args.value_or("");
  sdr.deadline.seconds = options.sdr_open_timeout_s.value_or(kDefaultDriverTimeout_s);
  sdr.deadline.option = options.name("sdr_open_timeout_s");
  sdr.deadline.stop = options.opening.stop;
  return std::make_unique<SoapySdrSource>(sdr);
#else
  (void)options;
  throw InputError(input, "is an SDR, but this prism was built without SoapySDR "
                          "(install libsoapysdr-dev and rebuild)");
#endif
}

json describe_sdr_device(const Source& source) {
  return {{"container", "SDR"}, {"device", source.describe()}, {"file_size", nullptr}};
}

// zmq: inputs (sources/zmq_source.hpp); without libzmq they say why they fail.
bool is_zmq_input(const std::string& input) { return input.rfind("zmq:", 0) == 0; }

std::unique_ptr<Source> open_zmq(const std::string& input, const SourceOptions& options) {
#if PRISM_HAVE_ZMQ
  return std::make_unique<ZmqSource>(input, options);
#else
  (void)options;
  throw InputError(input, "is a ZeroMQ stream, but this prism was built without libzmq "
                          "(install libzmq3-dev and rebuild)");
#endif
}

json describe_zmq(const Source& source) {
  json d = {{"container", "ZeroMQ stream"}, {"endpoint", source.describe()}, {"file_size", nullptr}};
#if PRISM_HAVE_ZMQ
  const auto& zmq = dynamic_cast<const ZmqSource&>(source);
  d["pattern"] = zmq.pattern_name();
  d["tagged"] = zmq.tagged();
  d["items"] = zmq.output().kind == PortKind::rows ? "rows" : "samples";
  if (zmq.output().kind == PortKind::rows) d["columns"] = zmq.output().rows.columns;
#endif
  return d;
}

bool is_stdin(const std::string& input) { return input == "-"; }
bool is_generator_input(const std::string& input) { return is_generator_spec(input); }
bool any_input(const std::string&) { return true; }

struct SourceKind {
  std::string_view name;
  bool (*matches)(const std::string& input);
  // The input is a path to check before the source opens it (exists, not a directory,
  // readable), so every file kind reports those problems in the same words.
  bool check_path_first;
  std::unique_ptr<Source> (*open)(const std::string& input, const SourceOptions& options);
  // What `prism info` adds to describe_stream for this kind, from the opened source.
  json (*describe)(const Source& source);
};

// The registration point: one line per source kind, tried in order; the last matches all.
constexpr SourceKind kSourceKinds[] = {
    {"generator", is_generator_input, false, open_generator, describe_generator},
    {"audio device", is_audio_device_input, false, open_audio_device, describe_audio_device},
    {"SDR", is_sdr_device_input, false, open_sdr_device, describe_sdr_device},
    {"ZeroMQ stream", is_zmq_input, false, open_zmq, describe_zmq},
    {"stdin", is_stdin, false, open_stdin, describe_raw},
    {"SigMF", is_sigmf_input, false, open_sigmf, describe_sigmf_source},
    {"sound file", is_sound_file_path, true, open_sound_file, describe_sound_file_source},
    {"raw", any_input, true, open_raw_file, describe_raw},
};

const SourceKind& kind_for(const std::string& input) {
  for (const auto& kind : kSourceKinds)
    if (kind.matches(input)) return kind;
  return std::end(kSourceKinds)[-1];
}

}  // namespace

json describe_stream(const StreamInfo& info) {
  json d;
  d["format"] = format_name(info.format);
  d["channels"] = info.channels;
  d["sample_rate"] = info.sample_rate;
  d["center_frequency"] = info.center_frequency;
  if (info.length) {
    d["length_samples"] = *info.length;
    d["duration_s"] = static_cast<double>(*info.length) / info.sample_rate;
  } else {
    d["length_samples"] = nullptr;
    d["duration_s"] = nullptr;
  }
  if (info.start_time.empty())
    d["start_time"] = nullptr;
  else
    d["start_time"] = info.start_time;
  d["live"] = info.live;
  return d;
}

std::string source_kind_name(const std::string& input) {
  return std::string(kind_for(input).name);
}

bool is_recording_path(const std::string& path) {
  const std::string ext = lower_extension(path);
  return is_sound_file_path(path) || ext == ".sigmf-meta" || ext == ".sigmf" ||
         raw_format_from_extension(path).has_value();
}

std::unique_ptr<Source> open_source(const std::string& input, const SourceOptions& options) {
  if (input.empty()) throw UsageError("the input is empty: give a file, - for stdin, or gen");
  const SourceKind& kind = kind_for(input);
  check_options_for(input, options);
  if (kind.check_path_first) (void)open_input_file(input);
  return kind.open(input, options);
}

std::unique_ptr<Source> open_audio_input(const std::string& input, const SourceOptions& options, unsigned channels,
                                         unsigned block_frames) {
  check_options_for(input, options);
  return open_checked_audio_device(input, options, channels, block_frames);
}

json describe_input(const std::string& input, const SourceOptions& options) {
  const SourceKind& kind = kind_for(input);
  const std::unique_ptr<Source> source = open_source(input, options);
  json d = kind.describe(*source);
  // The stream's fields last: they carry what the options changed (the centre frequency).
  d.update(describe_stream(source->info()));
  d["input"] = input;
  return d;
}

}  // namespace prism
