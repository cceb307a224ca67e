// Glob patterns as Valkey 8 matches them (KEYS, SCAN MATCH, PSUBSCRIBE, ACL key and channel
// patterns, CONFIG GET, COMMAND LIST FILTERBY PATTERN).
#pragma once
#include <string_view>

namespace base {

// * ? [abc] [^a-z] [a-] and \ escapes, with Valkey 8's answers for its edge cases: an
// unterminated class runs to the end of the pattern, a reversed range [z-a] is the range a-z,
// a trailing \ is a literal \, an empty string matches only the empty pattern (not even "*"),
// and a pattern with more than kGlobMaxStarRuns runs of '*' before its last character never
// matches (Valkey stops its recursion there). Linear in the pattern times the string.
bool GlobMatch(std::string_view pattern, std::string_view str, bool nocase = false);

inline constexpr int kGlobMaxStarRuns = 1000;

}  // namespace base
