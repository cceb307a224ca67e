// Our coverage-guided mutational fuzzer (no dependency beyond GCC's coverage hooks and the
// sanitizers). Usage (tests/fuzz/README.md):
//
//   valkey-fuzz list
//   valkey-fuzz <target> [--runs N] [--seconds S] [--seed N] [--artifacts DIR] [--corpus DIR]
//   valkey-fuzz <target> --replay FILE|DIR...
//
// Fuzzing starts from the target's seeds (plus --corpus files), mutates a corpus entry, runs
// it, and keeps it when it reached an edge (or an edge hit-count bucket) never seen before.
// An input that crashes, trips a sanitizer or an invariant, or runs longer than 10 s is written
// to DIR/crash-<target>-<hash> (or timeout-...) before the process dies; copy it into
// tests/fuzz/regress/<target>/ to keep it as a regression test.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstring>
#include <string>
#include <vector>

#include "base/util.h"
#include "coverage.h"
#include "fuzz.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
extern "C" const char* __asan_default_options() {
  return "abort_on_error=1:detect_leaks=1:allocator_may_return_null=0:malloc_context_size=20";
}
#endif
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1"; }

namespace fuzz {
std::vector<Target>& Targets() {
  static std::vector<Target> t;
  return t;
}
}  // namespace fuzz

namespace {

using fuzz::Target;

// ---- what dies with the process ----
const uint8_t* volatile g_cur = nullptr;
volatile size_t g_cur_len = 0;
volatile uint64_t g_execs = 0;
char g_artifact_dir[1024] = ".";
char g_target_name[128] = "";
uint64_t g_timeout_sec = 10;

uint64_t Fnv(const uint8_t* p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

// Async-signal-safe: builds the path by hand and uses write(2) only.
void SaveCurrent(const char* kind) {
  const uint8_t* p = g_cur;
  size_t n = g_cur_len;
  if (p == nullptr) return;
  char path[1400];
  size_t o = 0;
  auto put = [&](const char* s) {
    while (*s && o + 1 < sizeof path) path[o++] = *s++;
  };
  put(g_artifact_dir);
  put("/");
  put(kind);
  put("-");
  put(g_target_name);
  put("-");
  uint64_t h = Fnv(p, n);
  for (int i = 15; i >= 0; i--) {
    if (o + 1 < sizeof path) path[o++] = "0123456789abcdef"[(h >> (i * 4)) & 15];
  }
  path[o] = 0;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    size_t w = 0;
    while (w < n) {
      ssize_t r = write(fd, p + w, n - w);
      if (r <= 0) break;
      w += static_cast<size_t>(r);
    }
    close(fd);
  }
  const char* msg = "\n==fuzz== input written to ";
  (void)!write(2, msg, strlen(msg));
  (void)!write(2, path, strlen(path));
  (void)!write(2, "\n", 1);
}

void OnDeath() { SaveCurrent("crash"); }

void OnSignal(int sig) {
  SaveCurrent("crash");
  signal(sig, SIG_DFL);
  raise(sig);
}

void OnAlarm(int) {
  static uint64_t last = ~0ULL;
  static uint64_t stuck = 0;
  uint64_t now = g_execs;
  if (g_cur != nullptr && now == last) {
    if (++stuck >= g_timeout_sec) {
      const char* msg = "\n==fuzz== an input ran longer than the timeout\n";
      (void)!write(2, msg, strlen(msg));
      SaveCurrent("timeout");
      _exit(70);
    }
  } else {
    stuck = 0;
  }
  last = now;
}

void InstallHandlers() {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_set_death_callback(OnDeath);
#else
  signal(SIGSEGV, OnSignal);
  signal(SIGBUS, OnSignal);
  signal(SIGFPE, OnSignal);
  signal(SIGILL, OnSignal);
#endif
  signal(SIGABRT, OnSignal);  // FUZZ_CHECK and the sanitizers' abort_on_error
  signal(SIGALRM, OnAlarm);
  itimerval t{};
  t.it_interval.tv_sec = 1;
  t.it_value.tv_sec = 1;
  setitimer(ITIMER_REAL, &t, nullptr);
}

void RunOne(const Target& t, const std::string& in) {
  memset(fuzz::g_edges, 0, sizeof fuzz::g_edges);
  g_cur_len = in.size();
  g_cur = reinterpret_cast<const uint8_t*>(in.data());
  t.run(reinterpret_cast<const uint8_t*>(in.data()), in.size());
  g_cur = nullptr;
  g_execs = g_execs + 1;
}

// ---- coverage novelty ----
uint8_t g_virgin[fuzz::kMapSize];

inline uint8_t Bucket(uint8_t c) {
  if (c <= 3) return c == 3 ? 4 : c;  // 1 -> 1, 2 -> 2, 3 -> 4
  if (c <= 7) return 8;
  if (c <= 15) return 16;
  if (c <= 31) return 32;
  if (c <= 127) return 64;
  return 128;
}

// Records this execution's edges; true when something new was seen.
bool NewCoverage() {
  bool fresh = false;
  const uint64_t* w = reinterpret_cast<const uint64_t*>(fuzz::g_edges);
  for (size_t i = 0; i < fuzz::kMapSize / 8; i++) {
    if (w[i] == 0) continue;
    for (size_t j = i * 8; j < i * 8 + 8; j++) {
      uint8_t c = fuzz::g_edges[j];
      if (c == 0) continue;
      uint8_t b = Bucket(c);
      if ((g_virgin[j] & b) == 0) {
        g_virgin[j] |= b;
        fresh = true;
      }
    }
  }
  return fresh;
}

size_t EdgesSeen() {
  size_t n = 0;
  for (uint8_t v : g_virgin) n += v != 0;
  return n;
}

// ---- mutations ----
struct Rng {
  uint64_t s;
  uint64_t Next() {  // splitmix64
    uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  size_t Below(size_t n) { return n == 0 ? 0 : Next() % n; }
  bool Coin() { return Next() & 1; }
};

const int64_t kInteresting[] = {0,          1,           -1,          2,
                                7,          8,           16,          32,
                                63,         64,          100,         127,
                                128,        255,         256,         511,
                                512,        1000,        1024,        4096,
                                16383,      16384,       32767,       32768,
                                65535,      65536,       2147483647,  -2147483648LL,
                                4294967295, 4294967296,  -128,        -129,
                                0x7FFFFFFFFFFFFFFFLL,    static_cast<int64_t>(0x8000000000000000ULL)};

void PutInt(std::string* s, size_t pos, uint64_t v, int bytes, bool big_endian) {
  for (int i = 0; i < bytes && pos + i < s->size(); i++) {
    int shift = big_endian ? (bytes - 1 - i) * 8 : i * 8;
    (*s)[pos + i] = static_cast<char>((v >> shift) & 0xFF);
  }
}

std::string IntBytes(uint64_t v, int bytes, bool big_endian) {
  std::string s(bytes, '\0');
  PutInt(&s, 0, v, bytes, big_endian);
  return s;
}

std::string CmpToken(Rng& r) {
  for (int tries = 0; tries < 8; tries++) {
    uint64_t v = fuzz::g_cmp_consts[r.Below(fuzz::kCmpSlots)];
    if (v == 0) continue;
    int bytes = v < 0x10000 ? 2 : v < 0x100000000ULL ? 4 : 8;
    switch (r.Below(3)) {
      case 0:
        return IntBytes(v, bytes, false);
      case 1:
        return IntBytes(v, bytes, true);
      default:
        return std::to_string(v);
    }
  }
  return "";
}

void Mutate(Rng& r, std::string* s, const Target& t, const std::vector<std::string>& corpus) {
  int stack = 1 << r.Below(4);
  for (int k = 0; k < stack; k++) {
    size_t n = s->size();
    switch (r.Below(16)) {
      case 0:
        if (n) (*s)[r.Below(n)] ^= static_cast<char>(1 << r.Below(8));
        break;
      case 1:
        if (n) (*s)[r.Below(n)] = static_cast<char>(r.Next());
        break;
      case 2:
      case 3:
      case 4: {
        if (!n) break;
        int bytes = 1 << r.Below(4);  // 1, 2, 4, 8
        uint64_t v = static_cast<uint64_t>(kInteresting[r.Below(std::size(kInteresting))]);
        PutInt(s, r.Below(n), v, bytes, r.Coin());
        break;
      }
      case 5:
        if (n) {
          size_t p = r.Below(n);
          (*s)[p] = static_cast<char>((*s)[p] + (r.Coin() ? 1 : -1) * (1 + r.Below(35)));
        }
        break;
      case 6: {
        std::string ins(1 + r.Below(16), '\0');
        for (auto& c : ins) c = static_cast<char>(r.Next());
        s->insert(r.Below(n + 1), ins);
        break;
      }
      case 7:
        if (n) {
          size_t p = r.Below(n), len = 1 + r.Below(std::min<size_t>(n - p, 64));
          s->erase(p, len);
        }
        break;
      case 8:
        if (n) {
          size_t p = r.Below(n), len = 1 + r.Below(std::min<size_t>(n - p, 64));
          std::string chunk = s->substr(p, len);
          if (r.Coin())
            s->insert(r.Below(n + 1), chunk);
          else
            s->replace(r.Below(n), chunk.size(), chunk);
        }
        break;
      case 9:
      case 10:
        if (!t.dictionary.empty()) {
          const std::string& tok = t.dictionary[r.Below(t.dictionary.size())];
          if (r.Coin() || !n)
            s->insert(r.Below(n + 1), tok);
          else
            s->replace(r.Below(n), tok.size(), tok);
        }
        break;
      case 11: {
        std::string tok = CmpToken(r);
        if (!tok.empty()) {
          if (r.Coin() || !n)
            s->insert(r.Below(n + 1), tok);
          else
            s->replace(r.Below(n), tok.size(), tok);
        }
        break;
      }
      case 12:
        if (!corpus.empty()) {  // crossover with another entry
          const std::string& o = corpus[r.Below(corpus.size())];
          if (!o.empty()) {
            size_t p = r.Below(o.size()), len = 1 + r.Below(o.size() - p);
            s->insert(r.Below(n + 1), o.substr(p, len));
          }
        }
        break;
      case 13: {  // a decimal number in text becomes an interesting one
        if (!n) break;
        size_t p = r.Below(n);
        while (p < n && !isdigit(static_cast<unsigned char>((*s)[p]))) p++;
        if (p == n) break;
        size_t e = p;
        while (e < n && isdigit(static_cast<unsigned char>((*s)[e]))) e++;
        s->replace(p, e - p, std::to_string(kInteresting[r.Below(std::size(kInteresting))]));
        break;
      }
      case 14:
        if (n) s->resize(r.Below(n));
        break;
      case 15:
        s->insert(r.Below(n + 1), r.Coin() ? "\r\n" : "\n");
        break;
    }
  }
  if (s->size() > t.max_len) s->resize(t.max_len);
}

// ---- files ----

std::vector<std::string> FilesUnder(const std::string& path) {
  std::vector<std::string> out;
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return out;
  if (!S_ISDIR(st.st_mode)) {
    out.push_back(path);
    return out;
  }
  if (DIR* d = opendir(path.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      for (auto& f : FilesUnder(path + "/" + e->d_name)) out.push_back(f);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

int Usage() {
  fprintf(stderr,
          "usage: valkey-fuzz list\n"
          "       valkey-fuzz <target> [--runs N] [--seconds S] [--seed N] [--artifacts DIR] "
          "[--corpus DIR]\n"
          "       valkey-fuzz <target> --replay FILE|DIR...\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  std::string name = argv[1];
  if (name == "list") {
    for (auto& t : fuzz::Targets())
      if (!t.planted_bug) printf("%s\n", t.name);
    return 0;
  }
  const Target* target = nullptr;
  for (auto& t : fuzz::Targets())
    if (name == t.name) target = &t;
  if (target == nullptr) {
    fprintf(stderr, "unknown target '%s' (valkey-fuzz list)\n", name.c_str());
    return 2;
  }
  uint64_t runs = 0, seconds = 0, seed = static_cast<uint64_t>(time(nullptr)) ^ getpid();
  std::string corpus_dir;
  std::vector<std::string> replay;
  bool replay_mode = false;
  for (int i = 2; i < argc; i++) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--runs")
      runs = strtoull(next().c_str(), nullptr, 10);
    else if (a == "--seconds")
      seconds = strtoull(next().c_str(), nullptr, 10);
    else if (a == "--seed")
      seed = strtoull(next().c_str(), nullptr, 10);
    else if (a == "--artifacts")
      snprintf(g_artifact_dir, sizeof g_artifact_dir, "%s", next().c_str());
    else if (a == "--corpus")
      corpus_dir = next();
    else if (a == "--replay")
      replay_mode = true;
    else if (replay_mode)
      replay.push_back(a);
    else
      return Usage();
  }
  snprintf(g_target_name, sizeof g_target_name, "%s", target->name);
  InstallHandlers();

  if (replay_mode) {
    size_t n = 0;
    for (auto& p : replay)
      for (auto& f : FilesUnder(p)) {
        std::string in;
        if (!base::ReadWholeFile(f, &in)) {
          fprintf(stderr, "cannot read %s\n", f.c_str());
          return 1;
        }
        RunOne(*target, in);
        n++;
      }
    printf("%s: replayed %zu inputs, none failed\n", target->name, n);
    return 0;
  }

  if (runs == 0 && seconds == 0) seconds = 10;
  Rng rng{seed};
  std::vector<std::string> corpus;
  auto consider = [&](const std::string& in) {
    RunOne(*target, in);
    if (NewCoverage()) corpus.push_back(in);
  };
  for (auto& s : target->seeds()) consider(s.substr(0, target->max_len));
  if (!corpus_dir.empty())
    for (auto& f : FilesUnder(corpus_dir)) {
      std::string in;
      if (base::ReadWholeFile(f, &in)) consider(in.substr(0, target->max_len));
    }
  if (corpus.empty()) corpus.push_back("");
  size_t seeds = corpus.size();

  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  uint64_t done = 0;
  double next_report = 30;
  std::string in;
  while ((runs == 0 || done < runs) && (seconds == 0 || elapsed() < seconds)) {
    // Check the clock every 256 executions only.
    for (int k = 0; k < 256 && (runs == 0 || done < runs); k++, done++) {
      in = corpus[rng.Below(corpus.size())];
      Mutate(rng, &in, *target, corpus);
      RunOne(*target, in);
      if (NewCoverage()) corpus.push_back(in);
    }
    if (elapsed() > next_report) {
      fprintf(stderr, "%s: %llu executions, corpus %zu, edges %zu\n", target->name,
              static_cast<unsigned long long>(done), corpus.size(), EdgesSeen());
      next_report += 30;
    }
  }
  double secs = elapsed();
  printf("%s: %llu executions in %.1f s (%.0f/s), corpus %zu (%zu kept from the seeds), edges %zu, "
         "seed %llu, no failure\n",
         target->name, static_cast<unsigned long long>(done), secs, done / (secs > 0 ? secs : 1),
         corpus.size(), seeds, EdgesSeen(), static_cast<unsigned long long>(seed));
  return 0;
}
