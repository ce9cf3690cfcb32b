// JSONTestSuite (Nicolas Seriot, MIT): every file of test_parsing, read from the shared public
// test data (JSONTestSuite/ under ../shared/testdata, with its LICENSE and README), never copied
// into this repository. Missing data skips these tests, or fails them under
// AGENTKIT_REQUIRE_INTEROP=1.
//   y_  must parse (the two duplicate-key files: see kDuplicateKeyFiles);
//   n_  must be rejected with an error, not a crash;
//   i_  are implementation-defined: we pin our choice for each in kImplementationDefined.
#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "agentkit/json/value.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"
#include "support/shared_testdata.hpp"

using namespace agentkit;
namespace fs = std::filesystem;

namespace {

// The suite's folder of documents, under the shared test data.
constexpr const char* kSuiteFolder = "JSONTestSuite/test_parsing";
// The suite's file count at the version we pinned our answers to; a partial copy fails the tests.
constexpr std::size_t kSuiteFiles = 318;

// RFC 8259 allows repeated keys, so the suite lists them under y_. We reject them by design
// (ARCHITECTURE §6: a repeated key lets a smuggled member shadow a checked one); they parse
// when ParseOptions::reject_duplicate_keys is false.
const std::vector<std::string> kDuplicateKeyFiles = {"y_object_duplicated_key.json",
                                                     "y_object_duplicated_key_and_value.json"};

// Our answer for each implementation-defined case (true = accepted).
//  - Numbers are kept as literal text, so out-of-range magnitudes parse; the typed readers
//    report the overflow when asked (to_double / to_int64 answer limit_exceeded).
//  - Text that is not UTF-8 (Latin-1, UTF-16, stray bytes, overlongs, encoded surrogates),
//    lone or inverted surrogate escapes, and a byte-order mark are rejected.
//  - 500 nested arrays fit the default max_depth (512).
const std::map<std::string, bool> kImplementationDefined = {
    {"i_number_double_huge_neg_exp.json", true},
    {"i_number_huge_exp.json", true},
    {"i_number_neg_int_huge_exp.json", true},
    {"i_number_pos_double_huge_exp.json", true},
    {"i_number_real_neg_overflow.json", true},
    {"i_number_real_pos_overflow.json", true},
    {"i_number_real_underflow.json", true},
    {"i_number_too_big_neg_int.json", true},
    {"i_number_too_big_pos_int.json", true},
    {"i_number_very_big_negative_int.json", true},
    {"i_object_key_lone_2nd_surrogate.json", false},
    {"i_string_1st_surrogate_but_2nd_missing.json", false},
    {"i_string_1st_valid_surrogate_2nd_invalid.json", false},
    {"i_string_UTF-16LE_with_BOM.json", false},
    {"i_string_UTF-8_invalid_sequence.json", false},
    {"i_string_UTF8_surrogate_U+D800.json", false},
    {"i_string_incomplete_surrogate_and_escape_valid.json", false},
    {"i_string_incomplete_surrogate_pair.json", false},
    {"i_string_incomplete_surrogates_escape_valid.json", false},
    {"i_string_invalid_lonely_surrogate.json", false},
    {"i_string_invalid_surrogate.json", false},
    {"i_string_invalid_utf-8.json", false},
    {"i_string_inverted_surrogates_U+1D11E.json", false},
    {"i_string_iso_latin_1.json", false},
    {"i_string_lone_second_surrogate.json", false},
    {"i_string_lone_utf8_continuation_byte.json", false},
    {"i_string_not_in_unicode_range.json", false},
    {"i_string_overlong_sequence_2_bytes.json", false},
    {"i_string_overlong_sequence_6_bytes.json", false},
    {"i_string_overlong_sequence_6_bytes_null.json", false},
    {"i_string_truncated-utf-8.json", false},
    {"i_string_utf16BE_no_BOM.json", false},
    {"i_string_utf16LE_no_BOM.json", false},
    {"i_structure_500_nested_arrays.json", true},
    {"i_structure_UTF-8_BOM_empty_object.json", false},
};

struct SuiteFile {
  std::string name;
  std::string bytes;
};

std::vector<SuiteFile> suite_files(const fs::path& suite, char prefix) {
  std::vector<SuiteFile> files;
  std::size_t total = 0;
  for (const auto& entry : fs::directory_iterator(suite)) {
    ++total;
    const std::string name = entry.path().filename().string();
    if (name[0] == prefix) files.push_back({name, testing::read_file(entry.path())});
  }
  REQUIRE(total == kSuiteFiles);
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return files;
}

bool is_duplicate_key_file(const std::string& name) {
  return std::find(kDuplicateKeyFiles.begin(), kDuplicateKeyFiles.end(), name) != kDuplicateKeyFiles.end();
}

// What we print reads back as the same value, and printing that again changes nothing.
void check_round_trip(const json::Value& value) {
  const std::string printed = json::dump(value);
  const auto reparsed = json::parse(printed);
  REQUIRE(reparsed.has_value());
  CHECK(reparsed.value() == value);
  CHECK(json::dump(reparsed.value()) == printed);
  json::DumpOptions ascii;
  ascii.ascii_only = true;
  CHECK(json::parse(json::dump(value, ascii)).value() == value);
}

}  // namespace

TEST_CASE("every y_ document of JSONTestSuite parses and round-trips") {
  AGENTKIT_SHARED_TESTDATA(suite, kSuiteFolder);
  const auto files = suite_files(suite, 'y');
  CHECK(files.size() == 95);
  for (const auto& file : files) {
    INFO(file.name);
    json::ParseOptions options;
    options.reject_duplicate_keys = !is_duplicate_key_file(file.name);
    const auto r = json::parse(file.bytes, options);
    if (!r.has_value()) FAIL_CHECK(r.error().to_string());
    if (r.has_value()) check_round_trip(r.value());
  }
}

TEST_CASE("the suite's duplicate-key documents are rejected by default") {
  AGENTKIT_SHARED_TESTDATA(suite, kSuiteFolder);
  for (const auto& name : kDuplicateKeyFiles) {
    INFO(name);
    const auto r = json::parse(testing::read_file(suite / name));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Errc::parse_error);
    CHECK(r.error().message.find("duplicate key") != std::string::npos);
  }
}

TEST_CASE("every n_ document of JSONTestSuite is rejected with an error") {
  AGENTKIT_SHARED_TESTDATA(suite, kSuiteFolder);
  const auto files = suite_files(suite, 'n');
  CHECK(files.size() == 188);
  for (const auto& file : files) {
    INFO(file.name);
    const auto r = json::parse(file.bytes);
    REQUIRE_FALSE(r.has_value());
    const Errc code = r.error().code;
    CHECK((code == Errc::parse_error || code == Errc::limit_exceeded));
    CHECK(r.error().find_detail("offset").has_value());
    // Allowing duplicates relaxes nothing else.
    json::ParseOptions lenient;
    lenient.reject_duplicate_keys = false;
    CHECK_FALSE(json::parse(file.bytes, lenient).has_value());
  }
}

TEST_CASE("every i_ document of JSONTestSuite gets the answer recorded for it") {
  AGENTKIT_SHARED_TESTDATA(suite, kSuiteFolder);
  const auto files = suite_files(suite, 'i');
  CHECK(files.size() == kImplementationDefined.size());
  for (const auto& file : files) {
    INFO(file.name);
    const auto expected = kImplementationDefined.find(file.name);
    REQUIRE(expected != kImplementationDefined.end());
    const auto r = json::parse(file.bytes);
    CHECK(r.has_value() == expected->second);
    if (r.has_value()) check_round_trip(r.value());
  }
}

TEST_CASE("out-of-range numbers from the suite parse but their typed reads report the overflow") {
  AGENTKIT_SHARED_TESTDATA(suite, kSuiteFolder);
  const auto huge =
      json::parse(testing::read_file(suite / "i_number_real_pos_overflow.json")).value();
  CHECK(huge[std::size_t{0}].to_double().error().code == Errc::limit_exceeded);
  const auto big_int =
      json::parse(testing::read_file(suite / "i_number_too_big_pos_int.json")).value();
  CHECK(big_int[std::size_t{0}].to_int64().error().code == Errc::limit_exceeded);
  CHECK(big_int[std::size_t{0}].to_uint64().error().code == Errc::limit_exceeded);
}
