// prism: the command line. Parses the subcommand, runs it, and turns errors into messages and
// exit codes (see commands.hpp).
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include <poll.h>
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apps/commands.hpp"
#include "apps/option_checks.hpp"
#include "pipeline/errors.hpp"
#include "sources/driver_call.hpp"
#include "prism/version.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

// Flushes stdout and turns the command's exit code into the process's: a reader that closed
// stdout early (`prism ... | head`) ends the output quietly with the command's code; any other
// failure to write stdout (a full disk under `> file`) is an error, exit 1.
int finish_stdout(int code) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int flush_errno = errno;
  if (flushed && !std::ferror(stdout)) return code;
  // A pipe whose reader has gone polls as an error (the errno of a write that failed earlier
  // may have been overwritten since).
  pollfd out{STDOUT_FILENO, POLLOUT, 0};
  if (flush_errno == EPIPE || (::poll(&out, 1, 0) == 1 && (out.revents & POLLERR) != 0)) return code;
  std::fprintf(stderr, "prism: stdout: write failed: %s\n",
               flush_errno != 0 ? std::strerror(flush_errno) : "an earlier write failed");  // the reason went with that write
  return code == prism::app::kExitOk ? prism::app::kExitFailure : code;
}

// Buffers of up to 32 MiB come from the heap, and up to 64 MiB of freed memory stays at the top of
// each malloc arena for the next ones. With glibc's defaults each large buffer was mapped afresh, its pages
// zeroed by the kernel on first touch, or a freed one given back at once: ZeroMQ allocates a
// buffer per received message (512 KiB at the default block size) in its I/O thread and the
// receiver frees it in another, and a prism receiving over loopback spent a fifth of its time
// faulting those pages in (bench/RESULTS.md, "ZeroMQ streams"). Only the command line does this:
// a program embedding prism keeps its own allocator settings. A threshold the user set in
// GLIBC_TUNABLES is left as it is (mallopt of one threshold turns off glibc's adjustment of both).
void keep_large_buffers_in_the_heap() {
#if defined(__GLIBC__)
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && (std::strstr(tunables, "glibc.malloc.mmap_threshold") != nullptr ||
                              std::strstr(tunables, "glibc.malloc.trim_threshold") != nullptr))
    return;
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

int run_command(int argc, char** argv);

}  // namespace

int main(int argc, char** argv) {
  // A write to a pipe whose reader has gone fails with EPIPE instead of killing the process, so
  // every command, whatever it writes to stdout, ends as finish_stdout() says.
  std::signal(SIGPIPE, SIG_IGN);
  keep_large_buffers_in_the_heap();
  const int code = finish_stdout(run_command(argc, argv));
  // A call left stuck in a device driver (sources/driver_call.hpp) could hold the exit up or
  // crash it: static destructors may wait for it or destroy what it uses.
  if (prism::driver_calls_abandoned() > 0) {
    std::fflush(stderr);
    std::_Exit(code);
  }
  return code;
}

namespace {

int run_command(int argc, char** argv) {
  using namespace prism::app;
  CLI::App app{
      "prism: streaming spectral processing on the CPU and the GPU.\n"
      "Runs audio, SDR recordings, raw IQ files and test signals through chains of stages into\n"
      "spectrograms, recordings and sound.\n\n"
      "Examples:\n"
      "  prism spectrogram                          test signal -> spectrogram.png\n"
      "  prism spectrogram talk.wav -o talk.png --nperseg 1024 --window hann\n"
      "  prism spectrogram capture.sigmf-meta -o spec.npy --db\n"
      "  prism spectrogram iq.bin --format ci16 --rate 2.4e6 -o iq.png\n"
      "  prism run rec.sigmf-meta -o 'spectrogram:nperseg=1024 ! spec.png' -o copy.sigmf-meta\n"
      "  prism stages                               the stages a chain can name, with their settings\n"
      "  prism filter talk.wav -o low.wav --lowpass 3000 --numtaps 255\n"
      "  prism info capture.sigmf-meta\n"
      "  prism generate gen:tone=1000,noise=0.01 -o test.wav\n"
      "  prism design --lowpass 3000 --rate 48000 --numtaps 101 -o taps.npy\n"
      "  prism devices\n"
      "  prism fft-tune                             tune the CUDA FFT for this GPU (wisdom file)\n"
      "  prism view audio:                          live waterfall of the default audio input",
      "prism"};
  app.set_version_flag("--version", std::string("prism ") + PRISM_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);

  const std::vector<std::pair<std::string, Runner>> runners = {
      {"spectrogram", add_spectrogram_command(app)},
      {"run", add_run_command(app)},
      {"stages", add_stages_command(app)},
      {"filter", add_filter_command(app)},
      {"info", add_info_command(app)},
      {"generate", add_generate_command(app)},
      {"devices", add_devices_command(app)},
      {"view", add_view_command(app)},
      {"fft-tune", add_fft_tune_command(app)},
      {"design", add_design_command(app)},
  };

  // A mistyped command would otherwise read as "a subcommand is required".
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const auto& entry : runners) known = known || entry.first == argv[1];
    if (!known) {
      std::string names;
      for (const auto& entry : runners) names += (names.empty() ? "" : ", ") + entry.first;
      std::fprintf(stderr, "prism: unknown command '%s' (commands: %s)\nRun with --help for more information.\n",
                   prism::printable(argv[1]).c_str(), names.c_str());
      return kExitUsage;
    }
  }

  // CLI11 2.1 reads "--name=" (nothing after the '=') as "--name" and takes the next argument
  // as its value, so that "--nperseg= -o x.png" would set nperseg from "-o". Refused instead, for
  // the command's options that take a value (anything else is CLI11's to judge).
  if (argc > 1 && argv[1][0] != '-') {
    const CLI::App* command = app.get_subcommand(argv[1]);
    for (int i = 2; i < argc; ++i) {
      const std::string_view arg = argv[i];
      if (arg == "--") break;
      if (!(arg.size() > 3 && arg.starts_with("--") && arg.find('=') == arg.size() - 1)) continue;
      const std::string name(arg.substr(0, arg.size() - 1));
      const CLI::Option* option = command->get_option_no_throw(name);
      if (option == nullptr || option->get_expected_min() == 0) continue;  // not an option, or a flag
      const std::string shown = prism::printable(name);
      std::fprintf(stderr,
                   "prism: %s= has no value after the '=': write %s=VALUE, or %s '' where an empty value is meant\n"
                   "Run with --help for more information.\n",
                   shown.c_str(), shown.c_str(), shown.c_str());
      return kExitUsage;
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A mistyped option (--npersge 512) ends up among the unexpected arguments: the message
    // names the option it was probably meant to be, in place of CLI11's "not expected".
    for (const CLI::App* command : app.get_subcommands())
      if (const auto suggestion = suggest_option(*command, command->remaining())) {
        std::fprintf(stderr, "prism: %s\nRun with --help for more information.\n", suggestion->c_str());
        return kExitUsage;
      }
    app.exit(e);  // prints the message and the --help hint
    return kExitUsage;
  }

  try {
    for (const auto& [name, runner] : runners)
      if (app.got_subcommand(name)) return runner();
  } catch (const prism::UsageError& e) {
    std::fprintf(stderr, "prism: %s\nRun with --help for more information.\n",
                 prism::printable(e.what()).c_str());
    return kExitUsage;
  } catch (const prism::InputError& e) {
    std::fprintf(stderr, "prism: %s\n", prism::printable(e.what()).c_str());
    return kExitFailure;
  } catch (const prism::Interrupted& e) {
    std::fprintf(stderr, "prism: interrupted: %s\n", prism::printable(e.what()).c_str());
    return kExitInterrupted;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "prism: error: %s\n", prism::printable(e.what()).c_str());
    return kExitFailure;
  }
  return kExitUsage;
}

}  // namespace
