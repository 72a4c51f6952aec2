// Output names of a batch: a template such as 'out/{stem}.npy' filled in for one input. Its own
// file, without the rest of the batch, so that the fuzz target (tests/fuzz) links only this.
#pragma once

#include <string>

namespace prism::app {

// The placeholders an output template may hold, for help texts.
inline constexpr const char* kOutputTemplateHelp =
    "{stem} (the input's file name without its extension; .sigmf-meta counts as one), {name} "
    "(the file name), {dir} (the input's directory, '.' when none)";

// `pattern` with its placeholders replaced for `input` (UsageError for an unknown or unclosed
// placeholder). The result depends on the two texts only, never on the file system.
std::string expand_output_template(const std::string& pattern, const std::string& input);

}  // namespace prism::app
