// The command line of every Strata tool (strata-sim, strata-replay, strata-compare, strata-import, strata-mlp) on
// CLI11, under one set of rules: --help (-h) prints the usage line, what the program does, every option and the
// exit statuses on stdout and exits 0; a usage error prints "PROG: WHY" and "Try 'PROG --help'." on stderr and
// exits with kExitUsage (2 in every tool); values are read by the tool's own rules (suffixes, 0x), so what the
// docs promise is unchanged. Every tool's main runs its body through RunMain (host out of memory is a message and
// exit status 1, not an abort), and every command line a tool prints quotes its words with ShellWord. Header-only;
// depends on CLI11 alone.
#ifndef STRATA_HOST_TOOL_TOOL_CLI_H_
#define STRATA_HOST_TOOL_TOOL_CLI_H_

#include <CLI/CLI.hpp>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "numbers.h"

namespace strata::cli {

constexpr int kExitUsage = 2;
// What a tool returns when the host ran out of memory (RunMain).
constexpr int kExitHostMemory = 1;
// What Parse returns when the program should go on.
constexpr int kContinue = -1;

// Help text: the tool's synopsis ("usage: PROG ..."), its description, its options with their value names (no
// CLI11 type names or defaults: each option's text says its default), then the footer (exit statuses).
class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(std::string synopsis) : synopsis_(std::move(synopsis)) { column_width(24); }

  std::string make_usage(const CLI::App* app, std::string name) const override {
    if (synopsis_.empty()) return CLI::Formatter::make_usage(app, std::move(name));
    return "usage: " + synopsis_ + "\n";
  }
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    std::ostringstream out;
    out << make_usage(app, name);
    if (!app->get_description().empty()) out << "\n" << app->get_description() << "\n";
    out << make_positionals(app) << make_groups(app, mode) << make_subcommands(app, mode);
    const std::string footer = make_footer(app);
    if (!footer.empty()) out << "\n" << footer;
    return out.str();
  }
  std::string make_option_opts(const CLI::Option* opt) const override {
    if (opt->get_positional() || opt->get_type_size() == 0 || opt->get_type_name().empty()) return "";
    return " " + opt->get_type_name();
  }

 private:
  std::string synopsis_;
};

// Prints "PROG: WHY" and the --help hint on stderr; returns kExitUsage. For the checks a program makes after
// parsing (options that need each other, values read with the input).
inline int Usage(const std::string& program, const std::string& why) {
  std::fprintf(stderr, "%s: %s\nTry '%s --help'.\n", program.c_str(), why.c_str(), program.c_str());
  return kExitUsage;
}

// Runs a tool's main body under the house rule for host memory: std::bad_alloc from anywhere in it (a huge input, a
// ulimit -v) becomes "PROG: out of host memory" on stderr and kExitHostMemory, where an uncaught exception would
// abort with SIGABRT and a core. The stack is unwound first, so outputs still being written are abandoned (their
// temporary files removed, see regular_file.h) and the memory is back before the message is printed.
inline int RunMain(const char* program, int (*body)(int, char**), int argc, char** argv) {
  try {
    return body(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: out of host memory\n", program);
    return kExitHostMemory;
  }
}

// `s` as one word of a shell command line that the shell reads back as exactly `s`: as it is when every byte is
// plainly safe, in single quotes otherwise, and as $'...' (bash, zsh, ksh, dash >= 0.5.12, POSIX.1-2024 sh) when it
// holds a control character, each one escaped (\n, \xHH). A newline in a file name never ends the command line, so
// no part of a name runs as a command under GNU parallel or `sed -n "${N}p" jobs.txt | bash`; a shell without
// $'...' reads a wrong file name, which fails as one, and still runs nothing from it.
inline std::string ShellWord(const std::string& s) {
  bool plain = !s.empty(), control = false;
  for (const char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) control = true;
    if (!(std::isalnum(u) || c == '/' || c == '.' || c == '_' || c == '-' || c == ':' || c == ',' || c == '+' ||
          c == '=')) {
      plain = false;
    }
  }
  if (plain) return s;
  if (!control) {
    std::string q = "'";
    for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  }
  std::string q = "$'";
  for (const char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '\\' || c == '\'') {
      q += '\\';
      q += c;
    } else if (c == '\n') {
      q += "\\n";
    } else if (c == '\t') {
      q += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      q += hex;
    } else {
      q += c;
    }
  }
  return q + "'";
}

// A tool's App with the house rules. `synopsis` is the usage line after "usage: " ("strata-import INPUT [...]").
// A repeated option keeps its last value (as the hand-written parsers did), unless it is declared repeatable.
inline void Setup(CLI::App& app, const std::string& synopsis, const std::string& footer) {
  app.formatter(std::make_shared<HelpFormatter>(synopsis));
  app.footer(footer);
  app.set_help_flag("-h,--help", "this text");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.get_formatter()->label("Positionals", "Arguments");
}

// Parses argv: kContinue to go on, 0 after --help (printed on stdout), kExitUsage after a usage error.
inline int Parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::fputs(app.help("", CLI::AppFormatMode::All).c_str(), stdout);
    return 0;
  } catch (const CLI::ExtrasError&) {
    // Named as the hand-written parsers named them: the first option nobody takes, else the first extra argument.
    const std::vector<std::string> extras = app.remaining();
    for (const std::string& arg : extras) {
      if (arg.size() > 1 && arg[0] == '-') return Usage(app.get_name(), "unknown option '" + arg + "'");
    }
    return Usage(app.get_name(), "unexpected argument '" + (extras.empty() ? std::string() : extras[0]) + "'");
  } catch (const CLI::ParseError& e) {
    return Usage(app.get_name(), e.what());
  }
  return kContinue;
}

// The long name of a CLI11 name list ("-o,--output" -> "--output").
inline std::string LongName(const std::string& names) {
  const size_t comma = names.rfind(',');
  return comma == std::string::npos ? names : names.substr(comma + 1);
}

// Throws the usage error for option `name` when `why` is not empty (see AddTaken).
inline void Refuse(const std::string& name, const std::string& why) {
  if (why.empty()) return;
  if (why.compare(0, name.size(), name) == 0) throw CLI::ValidationError(why);
  throw CLI::ValidationError(name, why);
}

// An option whose value `take` reads by the tool's own rules: it returns "" when it took the value, else why the
// value is refused, which becomes the usage error "OPTION: WHY" (or WHY alone when it starts with the option's
// name: the tools' documented messages stay as they were). `value_name` is what --help shows ("N", "FILE").
inline CLI::Option* AddTaken(CLI::App& app, const std::string& names, const std::string& value_name,
                             std::function<std::string(const std::string&)> take, const std::string& help) {
  const std::string name = LongName(names);
  return app
      .add_option_function<std::string>(
          names, [name, take = std::move(take)](const std::string& v) { Refuse(name, take(v)); }, help)
      ->type_name(value_name);
}

// A value reader for AddTaken: a decimal count (digits only: no sign, space or suffix; ParseDecimal) within
// [min, max] into *out. Returns "" when taken, else "a count MIN..MAX" ("a count >= MIN", or "a count", when max is
// UINT64_MAX).
inline std::string TakeCount(const std::string& text, uint64_t min, uint64_t max, uint64_t* out) {
  if (!ParseDecimal(text, min, max, out)) {
    if (max != UINT64_MAX) return "a count " + std::to_string(min) + ".." + std::to_string(max);
    return min == 0 ? std::string("a count") : "a count >= " + std::to_string(min);
  }
  return "";
}

// A repeatable option (each occurrence one value, in order): `take` as above, once per value.
inline CLI::Option* AddRepeated(CLI::App& app, const std::string& names, const std::string& value_name,
                                std::function<std::string(const std::string&)> take, const std::string& help) {
  const std::string name = LongName(names);
  return app
      .add_option_function<std::vector<std::string>>(
          names,
          [name, take = std::move(take)](const std::vector<std::string>& values) {
            for (const std::string& v : values) {
              Refuse(name, take(v));
            }
          },
          help)
      ->type_name(value_name)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

}  // namespace strata::cli

#endif  // STRATA_HOST_TOOL_TOOL_CLI_H_
