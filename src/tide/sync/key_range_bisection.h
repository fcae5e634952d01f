// Key-range bisection: how `tide verify` finds the keys that differ between PostgreSQL and the lake
// from checksums alone, and how it classifies them.
//
// Key ranges. Each row's key hash is the md5 of its key's canonical text (canonical_value_sql.h) as 32
// lower-case hex digits, computed by both engines alike. A key range is a hex prefix: "" is every key,
// "a" the keys whose hash starts with a, "a7" a sixteenth of that. Ranges of hashes rather than of key
// values make both sides agree on which key lies in which range whatever the key's type or collation,
// and keep the ranges even in size. A side answers, for a set of ranges of one length, the checksum
// (row count and sum of row hashes) of each of their sixteen children that holds rows: one scan per
// level and side.
//
// Bisection. Starting from the root (known to differ), a range is settled when PostgreSQL's checksum
// equals that of one of the lake versions compared (the one before PostgreSQL's position, or the one
// after it, verify.h); otherwise it is split, until it holds at most `leaf_rows` rows on every side
// (or the hash is used up). Splitting stops once `max_leaves` leaves are found: their rows are then
// fetched and compared key by key.
//
// Classification of one key, from its rows in PostgreSQL (P), the lake before (B) and the lake after
// (A, absent when only one lake version is compared): equal when P matches B or A; in flight when A is
// present and B differs from A (the key changed in the lake commit that straddles PostgreSQL's
// position, so PostgreSQL may hold any of its versions); otherwise it differs: missing in the lake
// (P only), extra in the lake (B only), or differing in the named columns.
//
// Thread-safety: pure functions; the callbacks are called on the calling thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"

namespace tide {

// A range's checksum: rows and the sum of their 60-bit row hashes (exact, as decimal text).
struct RangeChecksum {
  int64_t rows = 0;
  std::string sum = "0";
  bool operator==(const RangeChecksum& other) const { return rows == other.rows && sum == other.sum; }
};

// The checksums of the children (parent + one hex digit) of every range in `parents` (all of one
// length) that hold rows; children without rows are absent.
using ChildChecksums = std::function<Result<std::map<std::string, RangeChecksum>>(const std::vector<std::string>& parents)>;

struct BisectionSides {
  ChildChecksums postgres;
  ChildChecksums lake_before;
  ChildChecksums lake_after;  // empty: one lake version only
};

struct BisectionLimits {
  int64_t leaf_rows = 64;   // a range this small (on every side) is compared row by row
  size_t max_leaves = 16;   // stop splitting once this many leaves are found
  size_t hash_digits = 32;  // the length of a full key hash
};

// The leaf ranges (hex prefixes) that hold differences, in ascending order. The root must differ.
Result<std::vector<std::string>> FindDifferingRanges(const BisectionSides& sides, const BisectionLimits& limits);

// One key's rows on one side: how many (a primary key has one; a table without one uses the whole row
// as its key, which may repeat), how it reads, and each compared column's hash.
struct KeyRows {
  int64_t count = 0;
  std::string display;  // "order_id=42"
  std::vector<std::string> column_hashes;
  bool operator==(const KeyRows& other) const { return count == other.count && column_hashes == other.column_hashes; }
};

enum class KeyDifference { kEqual, kInFlight, kMissingInLake, kExtraInLake, kDiffers };
const char* KeyDifferenceName(KeyDifference difference);

struct KeyVerdict {
  std::string key_hash;
  std::string display;
  KeyDifference difference = KeyDifference::kEqual;
  std::vector<std::string> columns;  // kDiffers: the columns that differ
  int64_t postgres_count = 0;        // rows of the key in PostgreSQL and in the lake (tables without a key)
  int64_t lake_count = 0;
};

// Classifies one key (see the header comment). `column_names` names the column hashes.
KeyVerdict ClassifyKey(const std::string& key_hash, const std::optional<KeyRows>& postgres,
                       const std::optional<KeyRows>& lake_before, const std::optional<std::optional<KeyRows>>& lake_after,
                       const std::vector<std::string>& column_names);

}  // namespace tide
