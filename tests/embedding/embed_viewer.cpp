// A host's program on the installed component `viewer` (find_package(prism COMPONENTS viewer),
// prism::viewer): it sets the viewer's settings through their API and opens prism's viewer on
// its own input. Built and run by tests/embedding/staged_install.cmake without a display, where
// the viewer must say so (a window needs X or Wayland); with a display it shows three frames.
#include <cstdio>
#include <stdexcept>
#include <string>

#include <prism/gui/viewer.hpp>
#include <prism/prism.hpp>

int main() {
  prism::view::ViewerOptions options;
  options.settings.apply_json_text(R"({"fft_size": 1024, "colormap": "inferno", "db_min": -100})", "embed_viewer");
  options.settings.validate();
  if (options.settings.fft_size != 1024 || options.settings.colormap != "inferno" || options.settings.db_min != -100) {
    std::fprintf(stderr, "embed_viewer: the settings were not applied: %s\n", options.settings.to_json_text().c_str());
    return 1;
  }
  options.frames = 3;
  options.title = "embed_viewer";
  auto open = [] { return prism::open_source("gen:rate=48000,tone=1000,duration=inf", {}); };
  try {
    const int code = prism::view::run_viewer(open, options);
    std::printf("embed_viewer: showed %ld frames (exit %d)\n", options.frames, code);
    return code;
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).find("cannot open a window") == std::string::npos) throw;
    std::printf("embed_viewer: %s\n", e.what());  // no display: what the viewer says
    return 0;
  }
}
