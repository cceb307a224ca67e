// Tests of the COMMAND DOCS argument DSL (server/command_args.inc) and its rendering.
#include "server/command_docs.h"

#include <set>
#include <string>

#include "check.h"
#include "server/command.h"
#include "server/command_tips.h"

namespace {

using server::DocArg;

// Decodes a RESP2 reply into Tcl list text, the way the Tcl tests print replies (braces only
// around elements that hold blanks or are empty).
std::string Decode(const std::string& s, size_t* pos) {
  size_t eol = s.find("\r\n", *pos);
  char t = s[*pos];
  std::string head = s.substr(*pos + 1, eol - *pos - 1);
  *pos = eol + 2;
  if (t == '$') {
    size_t n = std::stoul(head);
    std::string v = s.substr(*pos, n);
    *pos += n + 2;
    return v.find(' ') == std::string::npos && !v.empty() ? v : "{" + v + "}";
  }
  if (t == '*') {
    std::string out;
    for (long i = 0, n = std::stol(head); i < n; i++) out += (i ? " " : "") + Decode(s, pos);
    return out.empty() || out.find(' ') != std::string::npos ? "{" + out + "}" : out;
  }
  return head;  // + and :
}

std::string Render(const std::string& dsl, std::string* err = nullptr) {
  std::vector<DocArg> args;
  std::string e = server::ParseDocArgs(dsl, &args);
  if (err) *err = e;
  if (!e.empty()) return "error " + e;
  std::string out;
  net::Reply r(&out, 2);
  server::ReplyDocArguments(r, args);
  size_t pos = 0;
  return Decode(out, &pos);
}

std::string RenderLine(const char* fullname) {
  for (auto& l : server::DocArgsLines())
    if (std::string(l.fullname) == fullname) return Render(l.dsl);
  return "missing";
}

}  // namespace

TEST_CASE(command_docs_every_line_parses) {
  std::set<std::string> seen;
  for (auto& l : server::DocArgsLines()) {
    std::vector<DocArg> args;
    std::string err = server::ParseDocArgs(l.dsl, &args);
    if (!err.empty()) fprintf(stderr, "  %s: %s\n", l.fullname, err.c_str());
    CHECK(err.empty());
    CHECK(!args.empty());
    CHECK(seen.insert(l.fullname).second);  // one line per command
    CHECK(server::DocArguments(l.fullname) != nullptr);
  }
  CHECK(server::DocArguments("no-such-command") == nullptr);
}

// Every command and subcommand of the table, by fullname.
std::set<std::string> RegisteredNames() {
  if (server::AllCommands().empty()) server::BuildCommandTable();
  std::set<std::string> names;
  for (auto* c : server::AllCommands()) {
    names.insert(c->fullname);
    for (auto& s : c->subcommands) names.insert(s.fullname);
  }
  return names;
}

TEST_CASE(command_docs_lines_name_registered_commands) {
  std::set<std::string> names = RegisteredNames();
  // The replication and cluster commands come from hooks main.cc installs, not built here.
  const std::set<std::string> hooked = {"asking", "cluster", "failover", "psync",   "replconf",
                                        "replicaof", "role", "slaveof", "sync", "wait", "waitaof"};
  for (auto& l : server::DocArgsLines()) {
    std::string top(l.fullname);
    top = top.substr(0, top.find('|'));
    if (hooked.count(top)) continue;
    if (!names.count(l.fullname)) fprintf(stderr, "  not a command: %s\n", l.fullname);
    CHECK(names.count(l.fullname));
  }
}

TEST_CASE(command_docs_rendered_structures) {
  CHECK_EQ(RenderLine("get"), "{{name key type key display_text key key_spec_index 0}}");
  CHECK_EQ(RenderLine("lpush"),
           "{{name key type key display_text key key_spec_index 0} "
           "{name element type string display_text element flags multiple}}");
  CHECK_EQ(RenderLine("zadd"),
           "{{name key type key display_text key key_spec_index 0} "
           "{name condition type oneof since 3.0.2 flags optional arguments "
           "{{name nx type pure-token display_text nx token NX} "
           "{name xx type pure-token display_text xx token XX}}} "
           "{name comparison type oneof since 6.2.0 flags optional arguments "
           "{{name gt type pure-token display_text gt token GT} "
           "{name lt type pure-token display_text lt token LT}}} "
           "{name change type pure-token display_text change token CH since 3.0.2 flags optional} "
           "{name increment type pure-token display_text increment token INCR since 3.0.2 "
           "flags optional} "
           "{name data type block flags multiple arguments "
           "{{name score type double display_text score} "
           "{name member type string display_text member}}}}");
  // MIGRATE's key selector: a key, or the pure token "" (an empty token, still sent).
  CHECK_EQ(RenderLine("migrate"),
           "{{name host type string display_text host} "
           "{name port type integer display_text port} "
           "{name key-selector type oneof arguments "
           "{{name key type key display_text key key_spec_index 0} "
           "{name empty-string type pure-token display_text empty-string token {}}}} "
           "{name destination-db type integer display_text destination-db} "
           "{name timeout type integer display_text timeout} "
           "{name copy type pure-token display_text copy token COPY since 3.0.0 flags optional} "
           "{name replace type pure-token display_text replace token REPLACE since 3.0.0 "
           "flags optional} "
           "{name authentication type oneof flags optional arguments "
           "{{name auth type string display_text password token AUTH since 4.0.7} "
           "{name auth2 type block token AUTH2 since 6.0.0 arguments "
           "{{name username type string display_text username} "
           "{name password type string display_text password}}}}} "
           "{name keys type key display_text key key_spec_index 1 token KEYS since 3.0.6 "
           "flags {optional multiple}}}");
  CHECK_EQ(RenderLine("rpoplpush"),
           "{{name source type key display_text source key_spec_index 0} "
           "{name destination type key display_text destination key_spec_index 1}}");
}

TEST_CASE(command_docs_grammar) {
  CHECK_EQ(Render("a='ip:port':string:ADDR!2.8.12"),
           "{{name a type string display_text ip:port token ADDR deprecated_since 2.8.12}}");
  CHECK_EQ(Render("[id:integer:ID@6.2.0...]"),
           "{{name id type integer display_text id token ID since 6.2.0 flags {optional "
           "multiple}}}");
  CHECK_EQ(Render("[p:pattern:GET...+]"),
           "{{name p type pattern display_text p token GET flags {optional multiple "
           "multiple_token}}}");
  CHECK_EQ(Render("k:key x:key#5 y:key"),
           "{{name k type key display_text k key_spec_index 0} "
           "{name x type key display_text x key_spec_index 5} "
           "{name y type key display_text y key_spec_index 2}}");
  CHECK_EQ(Render("o:oneof( a:pure-token:A |\n b:block(c:integer d:unix-time):B )"),
           "{{name o type oneof arguments {{name a type pure-token display_text a token A} "
           "{name b type block token B arguments {{name c type integer display_text c} "
           "{name d type unix-time display_text d}}}}}}");
  CHECK_EQ(Render("e:pure-token:''"), "{{name e type pure-token display_text e token {}}}");
  const char* bad[] = {"",
                       "a",
                       "a:nope",
                       "a:pure-token",
                       "[a:string",
                       "a:string]",
                       "a:oneof()",
                       "a:oneof(b:string c:string)",
                       "a:string@",
                       "a:string@1.0...@2.0",
                       "a:stringb:string",
                       "A:string",
                       "a='x:block(b:string)",
                       "a='x':block(b:string)"};
  for (const char* b : bad) {
    std::string err;
    Render(b, &err);
    if (err.empty()) fprintf(stderr, "  accepted: %s\n", b);
    CHECK(!err.empty());
  }
}

// COMMAND INFO's tips (server/command_tips.cc): each entry names a command of the table, and
// the ones cluster clients route by come out as Valkey 8 lists them.
TEST_CASE(command_tips_name_registered_commands) {
  std::set<std::string> names = RegisteredNames();
  const std::set<std::string> hooked = {"cluster", "wait", "waitaof"};
  for (std::string_view n : server::CommandsWithTips()) {
    std::string name(n);
    if (hooked.count(name.substr(0, name.find('|')))) continue;
    if (!names.count(name)) fprintf(stderr, "  not a command: %s\n", name.c_str());
    CHECK(names.count(name));
  }
  auto joined = [](std::string_view fullname) {
    std::string s;
    for (std::string_view t : server::CommandTips(fullname))
      s += (s.empty() ? "" : " ") + std::string(t);
    return s;
  };
  CHECK_EQ(joined("dbsize"), std::string("request_policy:all_shards response_policy:agg_sum"));
  CHECK_EQ(joined("keys"), std::string("request_policy:all_shards nondeterministic_output_order"));
  CHECK_EQ(joined("scan"),
           std::string("nondeterministic_output request_policy:special response_policy:special"));
  CHECK_EQ(joined("config|set"),
           std::string("request_policy:all_nodes response_policy:all_succeeded"));
  CHECK_EQ(joined("get"), std::string());
}
