// Filter taps in files: reading .npy, text and JSON into FilterTaps, and encoding taps in the
// same three formats. The parser is a function over bytes (parse_taps), with a file-reading
// wrapper (read_taps_file); every malformed input is an InputError that names the file and
// what is wrong, never a crash and never a silently wrong tap.
//
// Formats read:
//   .npy   NumPy's format, versions 1.0, 2.0, 3.0: dtype float32, float64, complex64 or
//          complex128, little- or big-endian ('<f4' '>f8' '<c8' '>c16' ...), a vector (shape
//          (M,), or (M, 1), (1, M) and the like), either order (the same for a vector).
//   text   one value per line; '#' starts a comment; blank lines are skipped; a value is a
//          real (0.25, -1e-3, +.5) or a complex as Python and numpy.savetxt write it
//          ((1+2j), 1-2j, 2.5j, " (1.0e+00-2.0e+00j)", and older numpy's "+-" before a
//          negative imaginary part). Taps are complex when any value has an imaginary part
//          (written with j or J).
//   JSON   an array of numbers (real taps) or of [re, im] pairs (complex taps; plain numbers
//          among them are real values).
// No format may hold zero taps, or a tap that is NaN or infinite.
#pragma once

#include <string>
#include <string_view>

#include "filter_taps.hpp"

namespace prism {

enum class TapsFormat {
  automatic,  // by content: the .npy magic, else JSON when the first character is '[', else text
  npy,
  text,
  json,
};

// The format a path names by its extension (case-insensitive): .npy, .json; automatic for
// anything else (text files are .txt, .csv, .dat, ...; a '[' first makes them JSON).
TapsFormat taps_format_for_path(std::string_view path);

// Parses taps from the bytes of a file. `name` (the file's path) starts every message.
// Throws InputError(name, reason); text reasons start with the line number ("line 7: ...").
FilterTaps parse_taps(std::string_view bytes, TapsFormat format, const std::string& name);

// Reads a whole file (up to 1 GiB) and parses it, the format from its extension
// (taps_format_for_path). Throws InputError naming the path (missing, unreadable, a directory,
// too large, malformed).
FilterTaps read_taps_file(const std::string& path);

// Encodes taps in a format (not automatic):
//   npy   version 1.0, '<f8' (real) or '<c16' (complex), shape (M,);
//   text  one value per line in the shortest decimal that reads back exactly, complex ones as
//         (re+imj) / (re-imj) (what numpy.loadtxt(dtype=complex) and Python's complex() read),
//         after `comment` as '#' lines when not empty;
//   json  [v, ...] or [[re, im], ...], one tap per line.
// numpy.load / numpy.loadtxt / json.load read them back bit for bit.
std::string encode_taps(const FilterTaps& taps, TapsFormat format, std::string_view comment = {});

}  // namespace prism
