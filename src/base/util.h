// String <-> number conversion with the server's strict rules, memory units.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace base {

// n random lower-case hex chars from /dev/urandom (run ids, replication ids, node ids).
std::string RandomHex(int n);
// Strict integer parse: optional '-', no '+', no spaces, no leading zeros ("0" ok, "-0" not).
bool ParseInt64(std::string_view s, int64_t* out);
bool ParseUint64(std::string_view s, uint64_t* out);
// Decimal text of v into buf (at least 21 bytes); returns length.
int FormatInt64(int64_t v, char* buf);
std::string Int64ToString(int64_t v);
// Long double parse as INCRBYFLOAT accepts it (no spaces, no nan/inf results).
bool ParseLongDouble(std::string_view s, long double* out);
// Long double in human form: "%.17Lf" with trailing zeros (and dot) removed.
std::string FormatLongDouble(long double v);
// Double parse (strtod, whole string, no spaces, not nan).
bool ParseDouble(std::string_view s, double* out);
// Shortest text that round-trips, "inf"/"-inf" for infinities.
std::string FormatDouble(double v);
// The same into buf (at least kDoubleBufSize bytes); returns its length.
inline constexpr size_t kDoubleBufSize = 64;
int FormatDouble(double v, char* buf);
// "100", "1k"(1000), "1kb"(1024), "mb", "gb"...; negative not allowed.
std::optional<uint64_t> ParseMemory(std::string_view s);
bool EqualsNoCase(std::string_view a, std::string_view b);
std::string ToLower(std::string_view s);
// Human readable bytes as INFO prints them: "1.23M", "512B".
std::string BytesToHuman(uint64_t n);
// Bytes as Valkey's sdscatrepr quotes them: "..." with C escapes, \xHH for other bytes (the
// first `max` bytes).
std::string Repr(std::string_view s, size_t max = SIZE_MAX);

// The whole file at `path`, bytes as they are; false when it cannot be opened.
bool ReadWholeFile(const std::string& path, std::string* out);

}  // namespace base
