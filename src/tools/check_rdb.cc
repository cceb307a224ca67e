#include "tools/check_rdb.h"

#include <cerrno>
#include <climits>
#include <cstring>

#include "base/time.h"
#include "persist/snapshot.h"
#include "server/version.h"
#include "tools/mapped_file.h"

namespace tools {

namespace {

unsigned long long U(uint64_t v) { return static_cast<unsigned long long>(v); }

struct Counts {
  uint64_t keys = 0, expires = 0, already_expired = 0;
};

void PrintCounts(FILE* out, const Counts& c) {
  fprintf(out, "[info] %llu keys read\n", U(c.keys));
  fprintf(out, "[info] %llu expires\n", U(c.expires));
  fprintf(out, "[info] %llu already expired\n", U(c.already_expired));
}

}  // namespace

bool CheckSnapshot(const std::string& name, const uint8_t* p, size_t n, int64_t now_ms, FILE* out,
                   uint64_t* end) {
  fprintf(out, "[offset 0] Checking RDB file %s\n", name.c_str());
  Counts c;
  persist::LoadOptions opts;
  opts.verify_checksum = true;
  opts.skip_expired = false;  // counted, as Valkey's tool counts them, not left out
  opts.now_ms = now_ms;
  opts.num_dbs = INT_MAX;  // the file is checked, not loaded: any database id is fine
  opts.aux_read = [out](uint64_t at, std::string_view k, std::string_view v) {
    fprintf(out, "[offset %llu] AUX FIELD %.*s = '%.*s'\n", U(at), static_cast<int>(k.size()),
            k.data(), static_cast<int>(v.size()), v.data());
  };
  opts.db_selected = [out](uint64_t at, int db) {
    fprintf(out, "[offset %llu] Selecting DB ID %d\n", U(at), db);
  };
  persist::LoadResult r = persist::ParseSnapshot(
      p, n, opts,
      [&](int, std::string&, persist::Value&, int64_t expire_ms, int64_t, int, std::string*) {
        c.keys++;
        if (expire_ms >= 0) c.expires++;
        if (expire_ms >= 0 && expire_ms < now_ms) c.already_expired++;
        return true;
      });
  c.keys += r.empty_keys_skipped;
  if (!r.ok) {
    fprintf(out, "--- RDB ERROR DETECTED ---\n");
    fprintf(out, "[offset %llu] %s\n", U(r.error_offset), r.error.c_str());
    PrintCounts(out, c);
    return false;
  }
  if (r.version >= 5) {
    // The parser checked a non-zero checksum; zero means it was saved without one.
    static const uint8_t kNone[8] = {};
    bool none = memcmp(p + r.consumed - 8, kNone, 8) == 0;
    fprintf(
        out, "[offset %llu] %s\n", U(r.consumed),
        none ? "RDB file was saved with checksum disabled: no check performed." : "Checksum OK");
  }
  fprintf(out, "[offset %llu] \\o/ RDB looks OK! \\o/\n", U(r.consumed));
  PrintCounts(out, c);
  if (r.empty_keys_skipped)
    fprintf(out, "[info] %llu empty keys (skipped when loaded)\n", U(r.empty_keys_skipped));
  *end = r.consumed;
  return true;
}

int CheckRdbMain(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "Usage: %s <rdb-file-name>\n", argv[0]);
    return 1;
  }
  if (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--version")) {
    printf("valkey-check-rdb %s\n", server::kVersionDetails);
    return 0;
  }
  std::string name = argv[1];
  MappedFile f;
  if (!f.Open(name)) {
    // Valkey's tool says no more than that it could not read the file; the cause helps.
    printf("[offset 0] Checking RDB file %s\n", name.c_str());
    printf("--- RDB ERROR DETECTED ---\n");
    printf("[offset 0] Cannot open the file: %s\n", strerror(errno));
    return 1;
  }
  uint64_t end = 0;
  return CheckSnapshot(name, f.data(), f.size(), base::MsTime(), stdout, &end) ? 0 : 1;
}

}  // namespace tools
