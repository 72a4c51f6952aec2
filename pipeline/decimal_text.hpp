// Decimal text of a double that reads back as the same double: for messages, sidecars and the
// scipy lines that reproduce a design, where a rounded number would be a different number.
#pragma once

#include <string>

namespace prism {

// The shortest such text, in whichever of fixed and exponent notation is shorter (std::to_chars:
// "0.25", "24000", "1e-05", "1e-04", "1e+05").
std::string shortest_decimal(double value);
// Text for messages and spec strings: whole numbers in full ("2400000", not "2.4e+06": rates and
// frequencies read better so), others as shortest_decimal ("0.1", "1e-09").
std::string number_text(double value);
// shortest_decimal with ".0" where the text would read as an integer ("8.6", "30.0", "1e-05"), so
// that Python and JSON readers see a float. Python's repr differs in notation only (0.0001 where
// this gives 1e-04): both read back as the same double.
std::string python_float(double value);
// python_float(value) appended to `text`, without a string of its own (a sidecar's long arrays).
void append_python_float(std::string& text, double value);

}  // namespace prism
