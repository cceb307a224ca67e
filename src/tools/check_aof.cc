#include "tools/check_aof.h"

#include <libgen.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>

#include "base/time.h"
#include "base/util.h"
#include "persist/aof_format.h"
#include "server/version.h"
#include "tools/check_rdb.h"
#include "tools/mapped_file.h"

namespace tools {

AofScan ScanAof(const uint8_t* p, size_t n, size_t start, int64_t to_timestamp) {
  AofScan s;
  s.ok_up_to = start;
  persist::AofReader r(p, n, start);
  r.ReportAnnotations();
  uint64_t line = 1;  // of the next item
  bool in_multi = false;
  uint64_t multi_at = 0, multi_line = 0;
  auto invalid = [&](uint64_t at, const char* why) {
    s.verdict = AofScan::kInvalid;
    s.error_at = at;
    s.error = why;
    return s;
  };
  while (true) {
    uint64_t before = r.pos(), line_before = line;
    switch (r.Next()) {
      case persist::AofReader::kAnnotation: {
        line++;
        std::string_view a = r.annotation();
        if (to_timestamp && a.substr(0, 4) == "#TS:") {
          int64_t ts;
          if (!base::ParseInt64(a.substr(4), &ts)) {
            s.verdict = AofScan::kBadTimestamp;
            return s;
          }
          if (ts > to_timestamp) {
            // Cut before the annotation, or before the transaction it sits in.
            s.verdict = AofScan::kTimestampCut;
            s.ok_up_to = in_multi ? multi_at : before;
            s.line = in_multi ? multi_line : line_before;
            return s;
          }
        }
        break;
      }
      case persist::AofReader::kCommand: {
        line += 1 + 2 * r.argv().size();  // "*<n>", then "$<len>" and the bytes of each
        std::string_view name = r.argv()[0];
        if (base::EqualsNoCase(name, "multi")) {
          if (in_multi) return invalid(before, "Unexpected MULTI");
          in_multi = true;
          multi_at = before;
          multi_line = line_before;
        } else if (base::EqualsNoCase(name, "exec")) {
          if (!in_multi) return invalid(before, "Unexpected EXEC");
          in_multi = false;
        }
        break;
      }
      case persist::AofReader::kEnd:
        if (in_multi) return invalid(n, "Reached EOF before reading EXEC for MULTI");
        return s;
      case persist::AofReader::kTruncated:
        return invalid(before, "Unexpected end of file inside a command");
      case persist::AofReader::kBadFormat:
        s.format_error = r.error_offset() == before;
        return invalid(r.error_offset(), s.format_error
                                             ? "Neither a command nor an annotation"
                                             : "Expected a bulk string ($<length>, the bytes)");
    }
    if (!in_multi) {
      s.ok_up_to = r.pos();
      s.line = line;
    }
  }
}

namespace {

long long L(uint64_t v) { return static_cast<long long>(v); }

enum class Outcome { kValid, kEmpty, kTruncated, kTimestampTruncated, kFailed };

struct Mode {
  bool fix = false;
  int64_t to_timestamp = 0;
};

bool IsSnapshot(const MappedFile& f) {
  return f.size() >= 8 && memcmp(f.data(), "REDIS", 5) == 0;  // room for the header at least
}

// One file: its snapshot preamble (if any), then its commands.
Outcome CheckFile(const std::string& name, const std::string& path, bool last, const Mode& m) {
  MappedFile f;
  if (!f.Open(path)) {
    printf("Cannot open file %s: %s, aborting...\n", path.c_str(), strerror(errno));
    return Outcome::kFailed;
  }
  if (f.size() == 0) return Outcome::kEmpty;
  uint64_t start = 0;
  if (IsSnapshot(f)) {
    if (!CheckSnapshot(path, f.data(), f.size(), base::MsTime(), stdout, &start)) {
      printf("RDB preamble of AOF file is not sane, aborting.\n");
      return Outcome::kFailed;
    }
    printf("RDB preamble is OK, proceeding with AOF tail...\n");
  }
  AofScan s = ScanAof(f.data(), f.size(), start, m.to_timestamp);
  long long ts = static_cast<long long>(m.to_timestamp);
  if (s.verdict == AofScan::kBadTimestamp) {
    printf("Invalid timestamp annotation\n");
    return Outcome::kFailed;
  }
  if (s.verdict == AofScan::kTimestampCut) {
    if (s.ok_up_to == 0) {
      printf("AOF %s has nothing before timestamp %lld, aborting...\n", path.c_str(), ts);
      return Outcome::kFailed;
    }
    if (!last) {
      printf(
          "Failed to truncate AOF %s to timestamp %lld to offset %lld because it is not the "
          "last file.\n",
          path.c_str(), ts, L(s.ok_up_to));
      printf(
          "If you insist, please delete all files after this file according to the manifest "
          "file and delete the corresponding records in manifest file manually. Then re-run "
          "valkey-check-aof.\n");
      return Outcome::kFailed;
    }
    if (truncate(path.c_str(), static_cast<off_t>(s.ok_up_to)) != 0) {
      printf("Failed to truncate AOF %s to timestamp %lld: %s\n", path.c_str(), ts,
             strerror(errno));
      return Outcome::kFailed;
    }
    return Outcome::kTimestampTruncated;
  }
  if (s.verdict == AofScan::kInvalid) {
    if (s.format_error)
      printf("AOF %s format error at offset %lld\n", name.c_str(), L(s.error_at));
    else
      printf("0x%16llx: %s\n", static_cast<unsigned long long>(s.error_at), s.error.c_str());
  }
  uint64_t diff = f.size() - s.ok_up_to;
  if (diff == 0 && m.to_timestamp) {
    printf("Truncate nothing in AOF %s to timestamp %lld\n", name.c_str(), ts);
    return Outcome::kValid;
  }
  printf("AOF analyzed: filename=%s, size=%lld, ok_up_to=%lld, ok_up_to_line=%lld, diff=%lld\n",
         name.c_str(), L(f.size()), L(s.ok_up_to), L(s.line), L(diff));
  if (diff == 0) return Outcome::kValid;
  if (!m.fix) {
    printf("AOF %s is not valid. Use the --fix option to try fixing it.\n", name.c_str());
    return Outcome::kFailed;
  }
  // Fail closed: only the end of the last file may go, and only on the operator's word.
  if (!last) {
    printf("Failed to truncate AOF %s because it is not the last file\n", name.c_str());
    return Outcome::kFailed;
  }
  printf("This will shrink the AOF %s from %lld bytes, with %lld bytes, to %lld bytes\n",
         name.c_str(), L(f.size()), L(diff), L(s.ok_up_to));
  printf("Continue? [y/N]: ");
  fflush(stdout);
  char answer[8];
  if (!fgets(answer, sizeof(answer), stdin) || (answer[0] != 'y' && answer[0] != 'Y')) {
    printf("Aborting...\n");
    return Outcome::kFailed;
  }
  if (truncate(path.c_str(), static_cast<off_t>(s.ok_up_to)) != 0) {
    printf("Failed to truncate AOF %s: %s\n", name.c_str(), strerror(errno));
    return Outcome::kFailed;
  }
  return Outcome::kTruncated;
}

// False when the file failed (the caller exits 1).
bool Report(Outcome o, const std::string& name, const char* kind, const Mode& m) {
  switch (o) {
    case Outcome::kValid:
      printf("%s %s is valid\n", kind, name.c_str());
      break;
    case Outcome::kEmpty:
      printf("%s %s is empty\n", kind, name.c_str());
      break;
    case Outcome::kTruncated:
      printf("Successfully truncated AOF %s\n", name.c_str());
      break;
    case Outcome::kTimestampTruncated:
      printf("Successfully truncated AOF %s to timestamp %lld\n", name.c_str(),
             static_cast<long long>(m.to_timestamp));
      break;
    case Outcome::kFailed:
      return false;
  }
  return true;
}

// A manifest: lines of "file ..." (comments skipped) before anything else.
std::optional<bool> IsManifest(const std::string& path) {
  MappedFile f;
  if (!f.Open(path)) {
    printf("Cannot open file %s: %s\n", path.c_str(), strerror(errno));
    return std::nullopt;
  }
  std::string_view text(reinterpret_cast<const char*>(f.data()), f.size());
  bool manifest = false;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (!line.empty() && line[0] == '#') continue;
    if (line.substr(0, 4) != "file") break;
    manifest = true;
  }
  return manifest;
}

int CheckMultiPart(const std::string& manifest_path, const Mode& m) {
  printf("Start checking Multi Part AOF\n");
  std::string text, err;
  if (!base::ReadWholeFile(manifest_path, &text)) {
    printf("Cannot open file %s: %s\n", manifest_path.c_str(), strerror(errno));
    return 1;
  }
  persist::AofManifest am;
  persist::ManifestErrorAt where;
  if (!persist::ParseAofManifest(text, &am, &err, &where)) {
    if (where.line > 0)
      printf("%s (line %d: %s)\n", err.c_str(), where.line, where.text.c_str());
    else
      printf("%s\n", err.c_str());
    return 1;
  }
  std::string copy = manifest_path;
  std::string dir = dirname(copy.data());
  size_t total = (am.has_base ? 1 : 0) + am.incr.size(), seen = 0;
  if (am.has_base) {
    std::string path = dir + "/" + am.base.name;
    MappedFile f;
    bool rdb = f.Open(path) && IsSnapshot(f);
    printf("Start to check BASE AOF (%s format).\n", rdb ? "RDB" : "RESP");
    if (!Report(CheckFile(am.base.name, path, ++seen == total, m), am.base.name, "BASE AOF", m))
      return 1;
  }
  if (!am.incr.empty()) {
    printf("Start to check INCR files.\n");
    for (const persist::AofFile& i : am.incr) {
      if (!Report(CheckFile(i.name, dir + "/" + i.name, ++seen == total, m), i.name, "INCR AOF", m))
        return 1;
    }
  }
  printf("All AOF files and manifest are valid\n");
  return 0;
}

}  // namespace

int CheckAofMain(int argc, char** argv) {
  Mode m;
  const char* path = nullptr;
  if (argc == 2 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--version"))) {
    printf("valkey-check-aof %s\n", server::kVersionDetails);
    return 0;
  } else if (argc == 2) {
    path = argv[1];
  } else if (argc == 3 && !strcmp(argv[1], "--fix")) {
    m.fix = true;
    path = argv[2];
  } else if (argc == 4 && !strcmp(argv[1], "--truncate-to-timestamp")) {
    if (!base::ParseInt64(argv[2], &m.to_timestamp) || m.to_timestamp <= 0) {
      printf("Invalid timestamp, aborting...\n");
      return 1;
    }
    path = argv[3];
  } else {
    printf("Usage: %s [--fix|--truncate-to-timestamp $timestamp] <file.manifest|file.aof>\n",
           argv[0]);
    return 1;
  }
  std::optional<bool> manifest = IsManifest(path);
  if (!manifest) return 1;
  if (*manifest) return CheckMultiPart(path, m);
  printf("Start checking Old-Style AOF\n");
  return Report(CheckFile(path, path, true, m), path, "AOF", m) ? 0 : 1;
}

}  // namespace tools
