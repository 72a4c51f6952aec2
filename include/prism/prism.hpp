// prism's public API in one include (<prism/prism.hpp>): the stage graph with its sources, stages
// and sinks; the stage registry and chains; the synchronous streaming objects for programs with
// a loop of their own; filter design and taps files. Each header says in its first lines what it
// promises; docs/embedding.md shows whole programs. Link prism::prism (CMake) or `pkg-config
// --libs prism`.
#pragma once

#include "version.hpp"

#include "fft/dct.hpp"
#include "fft/fft.hpp"
#include "pipeline/chunk.hpp"
#include "pipeline/cpu_spectrogram.hpp"
#include "pipeline/demodulators.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/filter_design.hpp"
#include "pipeline/filter_taps.hpp"
#include "pipeline/fir_filter.hpp"
#include "pipeline/format.hpp"
#include "pipeline/graph.hpp"
#include "pipeline/mixer.hpp"
#include "pipeline/port.hpp"
#include "pipeline/resampler.hpp"
#include "pipeline/run_summary.hpp"
#include "pipeline/sample_stages.hpp"
#include "pipeline/settings.hpp"
#include "pipeline/source.hpp"
#include "pipeline/spectrogram_params.hpp"
#include "pipeline/spectrum_layout.hpp"
#include "pipeline/stage.hpp"
#include "pipeline/stage_registry.hpp"
#include "pipeline/stop_token.hpp"
#include "pipeline/stream_info.hpp"
#include "pipeline/streaming.hpp"
#include "pipeline/taps_file.hpp"
#include "pipeline/window.hpp"
#include "sinks/callback_sink.hpp"
#include "sinks/open_sink.hpp"
#include "sinks/sink_options.hpp"
#include "sources/generator.hpp"
#include "sources/open_source.hpp"
