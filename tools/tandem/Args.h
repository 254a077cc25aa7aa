//===- Args.h - One command's arguments, read with the shared conventions --===//
//
// Every tandem command reads its argv with these rules, LLVM's tools' own:
//   - a long option's value is `--name=value` or `--name value`;
//   - a flag is `--name` alone (`--name=x` is not that flag, so a command
//     reports it as unknown);
//   - a short option a command declares takes `-X value` or `-Xvalue`
//     (`-o out.img`, `-oout.img`, `-Iinclude`);
//   - `-` alone and anything not starting with `-` is positional.
// Before this reader, each command wrote its own loop, and half of them
// refused `--name=value`.
//
// Use:
//   ArgReader Args(Argc, Argv);            // Argv[0] is the command's name
//   while (Args.next()) {
//     if (Args.flag("--quick")) ...
//     else if (Args.option("--out")) {
//       std::optional<StringRef> V = Args.value();   // nullopt: none given
//       ...
//     } else if (Args.isPositional()) ... else unknown option Args.arg()
//   }
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace tandem::cli {

class ArgReader {
public:
  ArgReader(int Argc, char **Argv) : Argc(Argc), Argv(Argv) {}

  /// Moves to the next argument; false when there is none.
  bool next() {
    if (++Index >= Argc)
      return false;
    Current = Argv[Index];
    return true;
  }

  /// The current argument as written.
  llvm::StringRef arg() const { return Current; }

  /// The option's name: `--out` of `--out=dir`; otherwise the argument.
  llvm::StringRef name() const { return isLong() ? Current.split('=').first : Current; }

  /// `-` alone, or anything not starting with `-`.
  bool isPositional() const { return Current == "-" || !Current.starts_with("-"); }

  /// The flag \p Name, given alone.
  bool flag(llvm::StringRef Name) const { return Current == Name; }

  /// The long option \p Name, as `--name=value` or `--name` (its value
  /// next); read the value with value().
  bool option(llvm::StringRef Name) const { return isLong() && name() == Name; }

  /// A long option's value: the part after `=`, else the next argument
  /// (consumed); nullopt when neither is there.
  std::optional<llvm::StringRef> value() {
    if (isLong() && Current.contains('='))
      return Current.split('=').second;
    return following();
  }

  /// value() into \p Out; false (and \p Out unchanged) when there is none.
  bool valueInto(std::string &Out) {
    std::optional<llvm::StringRef> V = value();
    if (V)
      Out = V->str();
    return V.has_value();
  }

  /// The short option \p Flag (`-o`), as `-o value` or `-ovalue`.
  bool shortOption(llvm::StringRef Flag) const { return !isLong() && Current.starts_with(Flag); }

  /// A short option's value: the rest of the argument after \p Flag, else
  /// the next argument (consumed); nullopt when neither is there.
  std::optional<llvm::StringRef> shortValue(llvm::StringRef Flag) {
    if (Current.size() > Flag.size())
      return Current.drop_front(Flag.size());
    return following();
  }

private:
  bool isLong() const { return Current.starts_with("--"); }

  std::optional<llvm::StringRef> following() {
    if (Index + 1 >= Argc)
      return std::nullopt;
    return llvm::StringRef(Argv[++Index]);
  }

  int Argc;
  char **Argv;
  int Index = 0; ///< Argv[0] is the command's name
  llvm::StringRef Current;
};

} // namespace tandem::cli
