// Quicklist against a std::deque model, with and without node compression, under random
// pushes, pops, sets, inserts, range deletes, removals and walks.
#include "ds/quicklist.h"

#include <deque>
#include <memory>
#include <random>
#include <string>

#include "check.h"

namespace {
std::string Elem(std::mt19937& rng) {
  // Compressible and incompressible, short and long, integer-like.
  switch (rng() % 4) {
    case 0:
      return std::to_string(rng() % 1000);
    case 1:
      return std::string(20 + rng() % 40, 'a' + rng() % 3);
    case 2: {
      std::string s;
      for (int i = 0; i < 12; i++) s.push_back(static_cast<char>('a' + rng() % 26));
      return s;
    }
    default:
      return "element-" + std::to_string(rng() % 100);
  }
}

bool SameAsModel(const ds::Quicklist& q, const std::deque<std::string>& m) {
  if (q.Count() != m.size()) return false;
  bool ok = true;
  q.Walk(0, false, [&](size_t i, std::string_view v) {
    if (i >= m.size() || v != m[i]) ok = false;
    return ok;
  });
  if (!ok || m.empty()) return ok;
  q.Walk(m.size() - 1, true, [&](size_t i, std::string_view v) {
    if (v != m[i]) ok = false;
    return ok;
  });
  return ok;
}

void RunModel(int fill, int depth, unsigned seed, size_t* compressed_seen) {
  std::mt19937 rng(seed);
  ds::Quicklist q(fill, depth);
  std::deque<std::string> m;
  for (int step = 0; step < 4000; step++) {
    int op = rng() % 100;
    std::string s = Elem(rng);
    if (op < 30) {
      q.PushTail(s);
      m.push_back(s);
    } else if (op < 50) {
      q.PushHead(s);
      m.push_front(s);
    } else if (op < 58 && !m.empty()) {
      std::string out;
      q.PopHead(&out);
      CHECK_EQ(out, m.front());
      m.pop_front();
    } else if (op < 66 && !m.empty()) {
      std::string out;
      q.PopTail(&out);
      CHECK_EQ(out, m.back());
      m.pop_back();
    } else if (op < 76 && !m.empty()) {
      size_t i = rng() % m.size();
      CHECK(q.Set(static_cast<long>(i), s));
      m[i] = s;
    } else if (op < 86 && !m.empty()) {
      size_t i = rng() % m.size();
      bool after = rng() % 2;
      q.InsertAt(i, s, after);
      m.insert(m.begin() + i + (after ? 1 : 0), s);
    } else if (op < 90 && !m.empty()) {
      size_t i = rng() % m.size(), n = rng() % 20;
      q.DeleteRange(i, n);
      m.erase(m.begin() + i, m.begin() + std::min(m.size(), i + n));
    } else if (op < 93 && !m.empty()) {
      std::string victim = m[rng() % m.size()];
      bool tail = rng() % 2;
      size_t limit = rng() % 3;
      size_t removed = q.Remove(victim, limit, tail);
      size_t expect = 0;
      if (!tail) {
        for (auto it = m.begin(); it != m.end() && (!limit || expect < limit);)
          if (*it == victim) {
            it = m.erase(it);
            expect++;
          } else {
            ++it;
          }
      } else {
        for (size_t k = m.size(); k-- > 0 && (!limit || expect < limit);)
          if (m[k] == victim) {
            m.erase(m.begin() + k);
            expect++;
          }
      }
      CHECK_EQ(removed, expect);
    } else if (!m.empty()) {
      std::string out;
      long i = static_cast<long>(rng() % m.size());
      CHECK(q.Get(i, &out));
      CHECK_EQ(out, m[i]);
      CHECK(q.Get(i - static_cast<long>(m.size()), &out));
      CHECK_EQ(out, m[i]);
    }
    *compressed_seen = std::max(*compressed_seen, q.CompressedNodes());
    if (step % 97 == 0) CHECK(SameAsModel(q, m));
  }
  CHECK(SameAsModel(q, m));
  std::unique_ptr<ds::Quicklist> copy(q.Clone());
  CHECK(SameAsModel(*copy, m));
}
}  // namespace

TEST_CASE(QuicklistMatchesModel) {
  size_t seen = 0;
  for (unsigned seed = 1; seed <= 4; seed++) RunModel(4, 0, seed, &seen);
  CHECK_EQ(seen, 0u);  // no compression without a depth
}

TEST_CASE(QuicklistCompressedMatchesModel) {
  for (int depth : {1, 2}) {
    for (int fill : {4, -1}) {
      size_t seen = 0;
      for (unsigned seed = 10; seed <= 12; seed++) RunModel(fill, depth, seed, &seen);
      CHECK(seen > 0);  // inner nodes really were compressed
    }
  }
}
