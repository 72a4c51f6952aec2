// Tests of taps files (pipeline/taps_file.cpp):
//   1. files numpy, numpy.savetxt and Python's json wrote (data/numpy_taps_files.py): every
//      dtype in both byte orders, .npy versions 1-3, vectors as rows and columns, savetxt's
//      real and complex formats with headers, JSON numbers and pairs, files without an
//      extension; prism reads exactly what numpy reads.
//   2. what prism encodes, numpy reads back bit for bit (and parse_taps too).
//   3. values in text as Python and numpy write them.
//   4. malformed files, made by hand: each an InputError naming the file and what is wrong.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/errors.hpp"
#include "pipeline/taps_file.hpp"

namespace prism {
namespace {

using nlohmann::json;
using cdouble = std::complex<double>;

bool have_numpy() {
  const std::string python = PRISM_TEST_PYTHON;
  return !python.empty() && ::access(python.c_str(), X_OK) == 0 &&
         std::system((python + " -c 'import numpy' 2>/dev/null").c_str()) == 0;
}

class ScratchDir {
 public:
  ScratchDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("prism_qa_taps_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, std::string_view bytes) const {
    const std::string p = file(name);
    std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p;
  }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

std::string script() { return std::string(PRISM_TEST_DATA_DIR) + "/numpy_taps_files.py"; }

std::string slurp(FILE* pipe) {
  std::string text;
  char buffer[65536];
  while (std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) text.append(buffer, got);
  return text;
}

// ---- 1. files numpy wrote -------------------------------------------------------------------

TEST(TapsFile, ReadsWhatNumpyWrites) {
  if (!have_numpy()) GTEST_SKIP() << "python3 with numpy is not available";
  ScratchDir dir;
  const std::string command = std::string(PRISM_TEST_PYTHON) + " '" + script() + "' write '" + dir.file("") + "'";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  const std::string text = slurp(pipe);
  ASSERT_EQ(pclose(pipe), 0) << command;
  const json manifest = json::parse(text);
  ASSERT_GE(manifest.size(), 35u);
  for (const json& entry : manifest) {
    const std::string path = entry["file"];
    SCOPED_TRACE(path);
    FilterTaps taps;
    ASSERT_NO_THROW(taps = read_taps_file(path));
    const auto re = entry["re"].get<std::vector<double>>();
    EXPECT_EQ(taps.is_complex, entry["complex"].get<bool>());
    ASSERT_EQ(taps.size(), re.size());
    const auto im = entry["im"].is_null() ? std::vector<double>(re.size(), 0.0) : entry["im"].get<std::vector<double>>();
    for (std::size_t i = 0; i < re.size(); ++i) {
      EXPECT_EQ(taps[i].real(), re[i]) << i;
      EXPECT_EQ(taps[i].imag(), im[i]) << i;
    }
  }
}

// ---- 2. what prism writes ---------------------------------------------------------------------

TEST(TapsFile, NumpyReadsWhatPrismEncodes) {
  std::vector<double> real;
  for (int i = 0; i < 101; ++i) real.push_back(std::sin(0.37 * i) * std::pow(10.0, (i % 23) - 15));
  real.push_back(0.0);
  real.push_back(-0.0);
  real.push_back(std::numeric_limits<double>::denorm_min());
  real.push_back(std::numeric_limits<double>::max());
  std::vector<cdouble> complex;
  for (std::size_t i = 0; i < real.size(); ++i) complex.emplace_back(real[i], -real[real.size() - 1 - i]);
  complex.emplace_back(1.0, -0.0);
  const std::vector<FilterTaps> all = {FilterTaps::from_real(real), FilterTaps::from_complex(complex),
                                       FilterTaps::from_real({0.5})};
  const std::vector<std::pair<TapsFormat, std::string>> formats = {
      {TapsFormat::npy, ".npy"}, {TapsFormat::text, ".txt"}, {TapsFormat::json, ".json"}};

  ScratchDir dir;
  json manifest = json::array();
  int n = 0;
  for (const FilterTaps& taps : all) {
    for (const auto& [format, extension] : formats) {
      const std::string bytes = encode_taps(taps, format, "prism design --lowpass 1000\nsecond line");
      const std::string path = dir.write("taps" + std::to_string(n++) + extension, bytes);
      // prism reads its own files back exactly (and by content, without the extension).
      for (TapsFormat read_as : {format, TapsFormat::automatic}) {
        const FilterTaps back = parse_taps(bytes, read_as, path);
        ASSERT_EQ(back.is_complex, taps.is_complex) << path;
        ASSERT_EQ(back.size(), taps.size()) << path;
        for (std::size_t i = 0; i < taps.size(); ++i) {
          EXPECT_EQ(back[i], taps[i]) << path << " " << i;
          EXPECT_EQ(std::signbit(back[i].real()), std::signbit(taps[i].real())) << path << " " << i;
        }
      }
      std::vector<double> re(taps.size()), im(taps.size());
      for (std::size_t i = 0; i < taps.size(); ++i) re[i] = taps[i].real(), im[i] = taps[i].imag();
      json entry = {{"file", path}, {"re", re}};
      entry["format"] = format == TapsFormat::npy ? "npy" : format == TapsFormat::text ? "text" : "json";
      entry["im"] = taps.is_complex ? json(im) : json(nullptr);
      manifest.push_back(entry);
    }
  }
  EXPECT_EQ(encode_taps(FilterTaps::from_real({0.5}), TapsFormat::npy).size() % 64, 8u);  // 64-byte header + 8
  EXPECT_EQ(encode_taps(FilterTaps::from_complex({{0.25, -1.5}}), TapsFormat::text), "(0.25-1.5j)\n");
  EXPECT_EQ(encode_taps(FilterTaps::from_complex({{0.25, 1.5}}), TapsFormat::json), "[\n  [0.25,1.5]\n]\n");
  EXPECT_THROW(encode_taps(FilterTaps::from_real({1.0}), TapsFormat::automatic), std::invalid_argument);

  if (!have_numpy()) GTEST_SKIP() << "python3 with numpy is not available";
  const std::string manifest_path = dir.write("manifest.json", manifest.dump());
  const std::string command = std::string(PRISM_TEST_PYTHON) + " '" + script() + "' check '" + manifest_path + "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << "numpy reads other values (see above)";
}

// ---- 3. values in text ------------------------------------------------------------------------

TEST(TapsFile, TextValuesAsPythonWritesThem) {
  struct Case {
    const char* text;
    cdouble value;
  };
  const Case reals[] = {{"0.25", 0.25}, {"-1e-3", -1e-3}, {"+.5", 0.5}, {"5.", 5.0}, {"  7  ", 7.0},
                        {"1E+2", 100.0}, {"1e-400", 0.0}, {"(2.5)", 2.5}, {"3 # a comment", 3.0}};
  for (const Case& c : reals) {
    const FilterTaps taps = parse_taps(c.text, TapsFormat::text, "t.txt");
    EXPECT_FALSE(taps.is_complex) << c.text;
    ASSERT_EQ(taps.size(), 1u) << c.text;
    EXPECT_EQ(taps[0], c.value) << c.text;
  }
  const Case complexes[] = {
      {"(1+2j)", {1, 2}},
      {"1-2j", {1, -2}},
      {"2.5j", {0, 2.5}},
      {"-2.5e-3J", {0, -2.5e-3}},
      {" (1.000000000000000000e+00+-2.000000000000000000e+00j)", {1, -2}},
      {"(1.5e+00-3e-01j)", {1.5, -0.3}},
      {"(-1E-5+1E+5j)", {-1e-5, 1e5}},
      {"j", {0, 1}},
      {"1-j", {1, -1}},
      {"(0+0j)", {0, 0}},
  };
  for (const Case& c : complexes) {
    const FilterTaps taps = parse_taps(c.text, TapsFormat::text, "t.txt");
    EXPECT_TRUE(taps.is_complex) << c.text;
    ASSERT_EQ(taps.size(), 1u) << c.text;
    EXPECT_EQ(taps[0], c.value) << c.text;
  }
  // Comments, blank lines, CRLF, a byte-order mark; a real line among complex ones is real.
  const FilterTaps mixed = parse_taps("\xEF\xBB\xBF# header\r\n\r\n1.5\r\n  (2-1j)  # tap 2\n\n# end\n-3", TapsFormat::text, "m.txt");
  ASSERT_TRUE(mixed.is_complex);
  ASSERT_EQ(mixed.size(), 3u);
  EXPECT_EQ(mixed[0], cdouble(1.5, 0));
  EXPECT_EQ(mixed[1], cdouble(2, -1));
  EXPECT_EQ(mixed[2], cdouble(-3, 0));
}

TEST(TapsFile, FormatFromExtensionOrContent) {
  EXPECT_EQ(taps_format_for_path("a/b.NPY"), TapsFormat::npy);
  EXPECT_EQ(taps_format_for_path("b.json"), TapsFormat::json);
  EXPECT_EQ(taps_format_for_path("b.txt"), TapsFormat::automatic);
  EXPECT_EQ(taps_format_for_path("dir.d/taps"), TapsFormat::automatic);
  EXPECT_EQ(taps_format_for_path("b.bin"), TapsFormat::automatic);
  EXPECT_EQ(parse_taps("  [1, 2]", TapsFormat::automatic, "x").real, (std::vector<double>{1, 2}));
  EXPECT_EQ(parse_taps("1\n2\n", TapsFormat::automatic, "x").real, (std::vector<double>{1, 2}));
  // A .txt that holds JSON is read as JSON (the content decides among text formats).
  ScratchDir dir;
  EXPECT_EQ(read_taps_file(dir.write("j.txt", "[[1, 2]]")).complex, (std::vector<cdouble>{{1, 2}}));
}

// ---- 4. malformed files -----------------------------------------------------------------------

std::string npy_bytes(const std::string& dict, std::string_view data, char major = 1) {
  std::string header = dict;
  const std::size_t preamble = major == 1 ? 10 : 12;
  while ((preamble + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += major;
  out += '\0';
  const std::size_t length = header.size();
  out += static_cast<char>(length & 0xFF);
  out += static_cast<char>((length >> 8) & 0xFF);
  if (major != 1) out += std::string(2, '\0');
  return out + header + std::string(data);
}

std::string doubles(std::initializer_list<double> values) {
  std::string out;
  for (double v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
  return out;
}

struct BadFile {
  std::string name;
  std::string bytes;
  std::vector<std::string> says;
};

std::vector<BadFile> bad_files() {
  const std::string f8 = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }";
  const std::string two = doubles({0.5, 0.25});
  return {
      {"empty.npy", "", {"empty"}},
      {"empty.txt", "", {"empty"}},
      {"empty.json", "", {"empty"}},
      {"notnpy.npy", "hello world", {"not a .npy file"}},
      {"short.npy", std::string("\x93NUMPY\x01", 7), {"truncated", "header"}},
      {"version.npy", npy_bytes(f8, two, 4), {"version 4.0", "not supported"}},
      {"headerpast.npy", std::string("\x93NUMPY\x01\x00\xff\x00{'descr'", 18), {"truncated", "255 bytes"}},
      {"nokey.npy", npy_bytes("{'descr': '<f8', 'shape': (2,), }", two), {"needs the keys"}},
      {"extrakey.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': True}", two), {"unknown key 'x'"}},
      {"dupkey.npy", npy_bytes("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2,)}", two), {"twice"}},
      {"int.npy", npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", two), {"'<i4' is not supported", "float32"}},
      {"bytes.npy", npy_bytes("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", two), {"'|u1' is not supported"}},
      {"record.npy", npy_bytes("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,), }", two), {"structured"}},
      {"matrix.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", two), {"shape (2, 3)", "one-dimensional"}},
      {"zero.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }", ""), {"no taps", "(0,)"}},
      {"huge.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", two), {"shape"}},
      {"truncdata.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", two), {"truncated", "needs 24 bytes", "has 16"}},
      {"extradata.npy", npy_bytes(f8, two + "xyz"), {"extra bytes", "has 19"}},
      {"nan.npy", npy_bytes(f8, doubles({0.5, std::nan("")})), {"tap 1", "not finite"}},
      {"inf.npy", npy_bytes(f8, doubles({-INFINITY, 0.5})), {"tap 0", "not finite"}},
      {"order.npy", npy_bytes("{'descr': '<f8', 'fortran_order': 0, 'shape': (2,), }", two), {"unexpected value"}},
      {"garbage.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), ", two), {"bad .npy header"}},
      {"shapestr.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': '2', }", two), {"'shape' is not a tuple"}},
      {"negshape.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (-2,), }", two), {"dimension"}},
      {"word.txt", "0.5\n# fine\n\n  abc\n", {"line 4", "'abc' is not a number"}},
      {"two.txt", "0.5\n1 2\n", {"line 2", "one value per line"}},
      {"comma.txt", "0.5,0.25\n", {"line 1", "one value per line"}},
      {"nan.txt", "0.5\nnan\n", {"line 2", "not finite"}},
      {"overflow.txt", "1e999\n", {"line 1", "not finite"}},
      {"noj.txt", "(1+2)\n", {"line 1", "not a number"}},
      {"open.txt", "(1+2j\n", {"line 1", "not a number"}},
      {"signs.txt", "1--2j\n", {"line 1", "not a number"}},
      {"plusplus.txt", "++1\n", {"line 1", "not a number"}},
      {"comments.txt", "# only\n\n   # comments\n", {"no taps"}},
      {"nul.txt", std::string("0.5\n0.25\0\n", 10), {"line 2", "NUL byte"}},
      {"long.txt", "1\n" + std::string(500, 'x') + "\n", {"line 2", "...'"}},
      {"bad.json", "[0.5, 0.25", {"not valid JSON", "line 1"}},
      {"object.json", "{\"taps\": [1]}", {"holds an object", "array of numbers"}},
      {"strings.json", "[\"0.5\"]", {"element 0", "a string"}},
      {"pair3.json", "[1, [1, 2, 3]]", {"element 1", "an array of 3"}},
      {"pairstr.json", "[[1, \"2\"]]", {"element 0"}},
      {"null.json", "[1, null]", {"element 1", "null"}},
      {"emptyarray.json", "[]", {"no taps"}},
      {"huge.json", "[1e400]", {"not valid JSON", "number overflow"}},
      {"number.json", "0.5", {"holds a number"}},
  };
}

TEST(TapsFile, MalformedFilesSayWhatIsWrong) {
  ScratchDir dir;
  for (const BadFile& bad : bad_files()) {
    const std::string path = dir.write(bad.name, bad.bytes);
    try {
      read_taps_file(path);
      ADD_FAILURE() << bad.name << ": no error";
    } catch (const InputError& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.path(), path) << message;
      EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
      for (const std::string& word : bad.says) EXPECT_NE(message.find(word), std::string::npos) << bad.name << ": " << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
}

TEST(TapsFile, FilesThatCannotBeRead) {
  ScratchDir dir;
  auto message_of = [](const std::string& path) -> std::string {
    try {
      read_taps_file(path);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_EQ(message_of(dir.file("missing.npy")), dir.file("missing.npy") + ": no such file");
  EXPECT_NE(message_of(dir.file("")).find("is a directory"), std::string::npos);
}

// Every truncation and every single-byte change of valid files is either read or rejected
// with an InputError: never a crash, never another exception.
TEST(TapsFile, DamagedFilesNeverCrash) {
  std::vector<std::string> valid = {
      encode_taps(FilterTaps::from_real({0.5, -0.25, 1e-3}), TapsFormat::npy),
      encode_taps(FilterTaps::from_complex({{0.5, 1}, {-0.25, 2}}), TapsFormat::npy),
      encode_taps(FilterTaps::from_complex({{0.5, 1}, {-0.25, -2e-5}}), TapsFormat::text, "c"),
      encode_taps(FilterTaps::from_complex({{0.5, 1}, {-0.25, 2}}), TapsFormat::json),
  };
  static const char bytes[] = "\x00\x01\x7f\x80\xff()[]{},:;#+-.0123456789eEjJ \n'\"NUMPY<>|fc";
  std::size_t read = 0, rejected = 0;
  for (const std::string& file : valid) {
    for (std::size_t length = 0; length <= file.size(); ++length) {
      try {
        parse_taps(std::string_view(file).substr(0, length), TapsFormat::automatic, "cut");
        ++read;
      } catch (const InputError&) {
        ++rejected;
      }
    }
    for (std::size_t i = 0; i < file.size(); ++i) {
      for (std::size_t k = 0; k + 1 < sizeof bytes; ++k) {
        const char b = bytes[k];
        std::string damaged = file;
        damaged[i] = b;
        try {
          const FilterTaps taps = parse_taps(damaged, TapsFormat::automatic, "damaged");
          ASSERT_FALSE(taps.empty());
          for (std::size_t k = 0; k < taps.size(); ++k) ASSERT_TRUE(std::isfinite(std::abs(taps[k])));
          ++read;
        } catch (const InputError&) {
          ++rejected;
        }
      }
    }
  }
  EXPECT_GT(read, 100u);
  EXPECT_GT(rejected, 1000u);
}

}  // namespace
}  // namespace prism
