// cluster::State's node index: Find by name through Add, Rename and Remove, as a scan of the
// nodes in order would answer.
#include <string>

#include "check.h"
#include "cluster/state.h"

namespace {

using cluster::Node;
using cluster::State;

const std::string kA(40, 'a'), kB(40, 'b'), kC(40, 'c');

TEST_CASE(ClusterStateFindsNodesByName) {
  State st;
  Node* a = st.Add(kA, 0, 0);
  Node* b = st.Add(kB, 0, 0);
  CHECK(st.Find(kA) == a);
  CHECK(st.Find(kB) == b);
  CHECK(st.Find(kC) == nullptr);
  CHECK(st.Find("") == nullptr);
  // A handshake node (random name) learns its real one.
  Node* h = st.Add("", 0, 0);
  std::string random = h->name;
  CHECK(st.Find(random) == h);
  st.Rename(h, kC);
  CHECK(st.Find(kC) == h);
  CHECK(st.Find(random) == nullptr);
  st.Remove(b);
  CHECK(st.Find(kB) == nullptr);
  CHECK(st.Find(kA) == a);
  CHECK(st.Find(kC) == h);
  CHECK_EQ(st.nodes.size(), 2u);
}

TEST_CASE(ClusterStateIndexKeepsTheFirstOfTwoNamesakes) {
  // Two nodes never share a name for long (a duplicate handshake is deleted), but meanwhile
  // Find answers the earlier one, and the later one once the earlier is gone.
  State st;
  Node* first = st.Add(kA, 0, 0);
  Node* h = st.Add("", 0, 0);
  st.Rename(h, kA);
  CHECK(st.Find(kA) == first);
  st.Remove(first);
  CHECK(st.Find(kA) == h);
  st.Rename(h, kB);
  CHECK(st.Find(kA) == nullptr);
  CHECK(st.Find(kB) == h);
  // The state moves whole (nodes.conf is parsed into a State then moved in).
  State moved = std::move(st);
  CHECK(moved.Find(kB) == h);
}

}  // namespace
