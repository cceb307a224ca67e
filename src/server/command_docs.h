// The `arguments` of COMMAND DOCS: the argument DSL of command_args.inc, its parser and renderer.
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "net/reply.h"

namespace server {

// One documented argument, as COMMAND DOCS describes it.
struct DocArg {
  std::string name;
  std::string type;  // key, string, integer, double, pattern, unix-time, pure-token, oneof, block
  std::string display;  // display_text (non-container types only; the name unless given)
  std::string token;
  bool has_token = false;  // a token may be the empty string (MIGRATE's "" key selector)
  std::string since;
  std::string deprecated_since;
  int key_spec_index = -1;  // key type only
  bool optional = false, multiple = false, multiple_token = false;
  std::vector<DocArg> args;  // oneof / block children
};

// One line of command_args.inc: a command's fullname ("config|set") and its arguments in the DSL.
struct DocArgsLine {
  const char* fullname;
  const char* dsl;
};
std::span<const DocArgsLine> DocArgsLines();

// Parses a DSL string (grammar at the top of command_args.inc). Returns "" on success, otherwise
// a message naming the offending position.
std::string ParseDocArgs(std::string_view dsl, std::vector<DocArg>* out);

// The parsed arguments of a command by fullname, or nullptr when it has none. The table is
// parsed once, on first use; a line that does not parse is skipped (the unit test forbids it).
const std::vector<DocArg>* DocArguments(std::string_view fullname);

// Appends the `arguments` array value (not the key) to a COMMAND DOCS reply.
void ReplyDocArguments(net::Reply& r, const std::vector<DocArg>& args);

}  // namespace server
