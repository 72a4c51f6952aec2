// ISO 8601 date-times as SigMF's core:datetime writes them ("2024-05-01T12:00:00.25Z", an offset
// "+02:00" instead of Z), read into seconds since 1970-01-01T00:00:00 UTC, for absolute time axes.
#pragma once

#include <optional>
#include <string_view>

namespace prism {

// YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM), a space allowed for the T, no zone read as UTC.
// nullopt for any other text and for fields out of range (month 13, second 61).
std::optional<double> iso8601_epoch_seconds(std::string_view text);

}  // namespace prism
