// The source registry: turns the CLI's INPUT argument (a path, "-", or a generator spec) into
// a Source, and describes an input for `prism info`. Every source kind is one entry in one
// table in open_source.cpp; adding a source is its file plus one line there.
//
// Dispatch, first match wins:
//   gen, gen:...                                 the generator (sources/generator.hpp)
//   audio, audio:...                             an audio device (sources/portaudio_source.hpp)
//   sdr, sdr:...                                 an SDR through SoapySDR (sources/soapysdr_source.hpp)
//   zmq:sub:..., zmq:pull:...                    a ZeroMQ stream, as GNU Radio's gr-zeromq sends
//                                                (sources/zmq_source.hpp)
//   -                                            raw samples from stdin (sources/raw_file.hpp)
//   *.sigmf-meta, *.sigmf-data, *.sigmf, or a
//   base name whose .sigmf-meta exists           SigMF (sources/sigmf.hpp)
//   .wav .flac .ogg .oga .opus .aif .aiff .aifc
//   .au .snd .caf .w64 .rf64                     sound files through libsndfile
//   anything else                                raw samples (--format or the extension says
//                                                the format, --rate the rate)
// Paths are checked before dispatch: a missing path, a directory or an unreadable file is an
// InputError naming the path.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "../pipeline/format.hpp"
#include "../pipeline/source.hpp"
#include "../pipeline/stop_token.hpp"
#include "../pipeline/stream_info.hpp"

namespace prism {

// How an input that waits for data while it is opened waits (a network stream: its first
// message says what the stream is). The wait is part of the run: the same stall timeout as a
// read of the run, and a stop (Ctrl-C) ends it.
struct OpeningWait {
  // Seconds without data before opening fails (InputError naming the input and the stall
  // timeout); 0 or 1e9 and more: for ever; unset: kDefaultLiveStallTimeout_s for a live input
  // without a timeout of its own (zmq's timeout=), for ever otherwise.
  std::optional<double> stall_timeout_s;
  const StopToken* stop = nullptr;  // when it is requested, opening throws Interrupted
};

// A recording cut short (raw samples, a SigMF data file or stdin that end in the middle of a
// sample; a sound file whose data ends before its header says, as a killed recorder leaves it):
// read up to its last whole sample and say what is missing through `warn`, as sox, scipy and
// GNU Radio read such files; `strict` (the default of the sources themselves, which the command
// line turns off unless --strict) refuses it (InputError naming the file).
struct TruncationPolicy {
  bool strict = true;
  std::function<void(const std::string&)> warn;  // "FILE: what is missing; ..."; null: silent
  // Applies the policy to input `name`, cut short as `reason` says.
  void apply(const std::string& name, const std::string& reason) const;
};

// What the command line says about an input. Raw input needs the format (or an extension that
// names it) and the rate. Inputs that state these themselves (SigMF, sound files, the
// generator) reject a --format, --rate or --channels that contradicts them (UsageError); a
// non-zero centre frequency relabels any input.
struct SourceOptions {
  std::optional<SampleFormat> format;
  bool big_endian = false;            // raw input's components are big-endian (--format ci16_be)
  std::optional<double> sample_rate;  // Hz, > 0
  unsigned channels = 1;              // interleaved channels of raw input, >= 1
  double center_frequency = 0;        // Hz; an SDR is tuned to it (0: left as it is)

  // SDR input only (sdr:...; see sources/soapysdr_source.hpp); other inputs reject any that is
  // set, even to its default's value.
  std::optional<double> gain;                  // dB; unset: automatic gain where the device has it
  std::optional<std::string> antenna;          // unset or "": the device's default
  std::optional<std::size_t> sdr_channel;      // RX channel; unset: 0
  std::optional<std::string> sdr_stream_args;  // KEY=VALUE,... for the driver's stream
  // Seconds each call into the SDR's driver may take while the device is listed, opened, set up
  // and closed (sources/driver_call.hpp); 0: for ever; unset: kDefaultDriverTimeout_s.
  std::optional<double> sdr_open_timeout_s;
  TruncationPolicy truncation;        // files and stdin cut short
  OpeningWait opening;                // inputs that wait while opened (zmq:)
  // How messages name these fields: by the field's name (sample_rate, ...) when null; the
  // command line names its options (--rate, ...), the Python module its arguments (rate). A
  // plain function: GCC 12 warns of a std::function member here (maybe-uninitialized).
  std::string (*field_namer)(std::string_view field) = nullptr;
  std::string name(std::string_view field) const {
    return field_namer ? field_namer(field) : std::string(field);
  }
  bool has_sdr_settings() const {
    return gain || antenna || sdr_channel || sdr_stream_args || sdr_open_timeout_s;
  }
};

// Opens `input`. Throws InputError (path and reason) for inputs that cannot be used and
// UsageError for options that are missing or contradict the input.
std::unique_ptr<Source> open_source(const std::string& input, const SourceOptions& options);

// Opens an audio device input (audio:, audio:NAME, audio:INDEX) as open_source does, with what
// only the viewer sets: `channels` 0 captures up to 2 (open_source asks for --channels unless it
// is 1), `block_frames` 0 leaves the frames per callback to PortAudio.
std::unique_ptr<Source> open_audio_input(const std::string& input, const SourceOptions& options, unsigned channels,
                                         unsigned block_frames);

// describe_input and describe_stream, the JSON of `prism info`: sources/input_description.hpp.

// The name of the source kind open_source would pick for `input` ("generator", "audio device",
// "SDR", "ZeroMQ stream", "stdin", "SigMF", "sound file", "raw"), without opening anything.
std::string source_kind_name(const std::string& input);

// True when `path`'s extension names a recording open_source reads without being told its
// format: a sound file, .sigmf-meta, a .sigmf archive, or raw samples with a format extension
// (.cf32 ...). A batch takes these from a directory.
bool is_recording_path(const std::string& path);

}  // namespace prism
