//===- PtxEntry.h - PTX .entry signatures and kernel argument packing -*- C++ -*-===//
//
// The gpu device takes PTX, not a kernel image, so what a kernel's parameters
// are (how many, how wide, how aligned) comes from its `.entry` signature in
// the PTX text itself:
//
//   .visible .entry spmv(
//       .param .u32 spmv_param_0,
//       .param .u64 .ptr .global .align 4 spmv_param_1,
//       .param .align 8 .b8 spmv_param_2[16]
//   )
//
// parsePtxEntries reads every entry of a module (ours, nvcc's, LLVM's NVPTX
// all write this grammar); packParams lays argument values out as the
// kernel's parameter space does (each at an offset aligned to its type) and
// gives cuLaunchKernel the pointer to each.
//
// Shared by runtime/GpuDevice.cpp and the standalone runner (gpu/), which has
// no LLVM: plain C++17, header-only, errors as strings.
//
// Input invariants: none (any text). Guarantees: a signature the parser does
// not understand is an error naming the kernel and the parameter text, never
// a guess; packParams refuses a value that does not fit its parameter.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tandem::ptx {

struct PtxParam {
  std::string Name;
  std::string Type;    ///< without the dot: "u64", "f32", "b8", ...
  unsigned ElemBytes = 0;
  unsigned Count = 1;  ///< array length; 1 for a scalar
  unsigned Align = 0;  ///< .align N before the type, else ElemBytes
  bool IsPointer = false; ///< written with .ptr (nvcc and LLVM sometimes do)

  unsigned bytes() const { return ElemBytes * Count; }
  bool isArray() const { return Count != 1; }
  bool isFloat() const { return !Type.empty() && Type[0] == 'f'; }
};

struct PtxEntry {
  std::string Name;
  std::vector<PtxParam> Params;
};

namespace detail {

/// The text with // and /* */ comments replaced by spaces.
inline std::string stripComments(const std::string &S) {
  std::string Out = S;
  for (size_t I = 0; I + 1 < Out.size(); ++I) {
    if (Out[I] == '/' && Out[I + 1] == '/') {
      while (I < Out.size() && Out[I] != '\n')
        Out[I++] = ' ';
    } else if (Out[I] == '/' && Out[I + 1] == '*') {
      size_t End = Out.find("*/", I + 2);
      End = End == std::string::npos ? Out.size() : End + 2;
      for (; I < End; ++I)
        if (Out[I] != '\n')
          Out[I] = ' ';
    }
  }
  return Out;
}

inline bool isIdentChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '$' ||
         C == '.' || C == '%';
}

/// Splits a parameter declaration into tokens: words and the brackets.
inline std::vector<std::string> tokenize(const std::string &S) {
  std::vector<std::string> Tokens;
  for (size_t I = 0; I < S.size();) {
    if (std::isspace(static_cast<unsigned char>(S[I]))) {
      ++I;
    } else if (S[I] == '[' || S[I] == ']') {
      Tokens.emplace_back(1, S[I++]);
    } else {
      size_t J = I;
      while (J < S.size() && isIdentChar(S[J]))
        ++J;
      if (J == I)
        J = I + 1; // an unexpected character: its own token, rejected later
      Tokens.push_back(S.substr(I, J - I));
      I = J;
    }
  }
  return Tokens;
}

/// Bytes of a PTX fundamental type ("u64" -> 8), 0 if it is not one.
inline unsigned typeBytes(const std::string &T) {
  static const char *const Names[] = {"b8", "u8", "s8", "b16", "u16", "s16", "f16",
                                      "b32", "u32", "s32", "f32", "b64", "u64", "s64",
                                      "f64"};
  static const unsigned Sizes[] = {1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 8, 8, 8, 8};
  for (size_t I = 0; I < sizeof(Sizes) / sizeof(Sizes[0]); ++I)
    if (T == Names[I])
      return Sizes[I];
  return 0;
}

inline bool parseUnsigned(const std::string &S, unsigned &V) {
  if (S.empty() || S.size() > 9)
    return false;
  V = 0;
  for (char C : S) {
    if (C < '0' || C > '9')
      return false;
    V = V * 10 + unsigned(C - '0');
  }
  return true;
}

/// One `.param ...` declaration of kernel \p Kernel.
inline bool parseParam(const std::string &Text, const std::string &Kernel, PtxParam &P,
                       std::string &Error) {
  auto Fail = [&](const std::string &Why) {
    Error = "kernel '" + Kernel + "': cannot read parameter '" + Text + "': " + Why;
    return false;
  };
  std::vector<std::string> T = tokenize(Text);
  size_t I = 0;
  // ".align N" at T[I], if there, into \p A (a power of two).
  auto Align = [&](unsigned &A) -> bool {
    if (I < T.size() && T[I] == ".align") {
      if (I + 1 >= T.size() || !parseUnsigned(T[I + 1], A) || A == 0 || (A & (A - 1)))
        return false;
      I += 2;
    }
    return true;
  };
  if (T.empty() || T[I++] != ".param")
    return Fail("expected '.param'");
  if (!Align(P.Align))
    return Fail("bad .align");
  if (I >= T.size() || T[I][0] != '.' || !(P.ElemBytes = typeBytes(T[I].substr(1))))
    return Fail("expected a type such as .u32, .u64, .f32 or .b8");
  P.Type = T[I++].substr(1);
  if (I < T.size() && T[I] == ".ptr") {
    P.IsPointer = true;
    ++I;
    if (I < T.size() && (T[I] == ".global" || T[I] == ".const" || T[I] == ".local" ||
                         T[I] == ".shared"))
      ++I;
    // After .ptr, .align is the pointee's alignment, not the parameter's.
    unsigned PointeeAlign = 0;
    if (!Align(PointeeAlign))
      return Fail("bad .align");
  }
  if (I >= T.size() || T[I][0] == '.' || T[I] == "[" || T[I] == "]")
    return Fail("expected the parameter's name");
  P.Name = T[I++];
  if (I < T.size() && T[I] == "[") {
    if (I + 2 >= T.size() || !parseUnsigned(T[I + 1], P.Count) || P.Count == 0 ||
        T[I + 2] != "]")
      return Fail("bad array length");
    I += 3;
  }
  if (I != T.size())
    return Fail("unexpected '" + T[I] + "'");
  if (P.Align == 0)
    P.Align = P.ElemBytes;
  return true;
}

} // namespace detail

/// Every `.entry` of \p Ptx, in order. False, with \p Error naming the kernel
/// and the text, when a signature cannot be read.
inline bool parsePtxEntries(const std::string &Ptx, std::vector<PtxEntry> &Out,
                            std::string &Error) {
  Out.clear();
  std::string S = detail::stripComments(Ptx);
  for (size_t Pos = S.find(".entry"); Pos != std::string::npos;
       Pos = S.find(".entry", Pos + 6)) {
    // A whole word: not ".entry_x" and not inside another identifier.
    size_t After = Pos + 6;
    if ((Pos > 0 && detail::isIdentChar(S[Pos - 1]) && S[Pos - 1] != '.') ||
        (After < S.size() && !std::isspace(static_cast<unsigned char>(S[After]))))
      continue;
    size_t I = After;
    while (I < S.size() && std::isspace(static_cast<unsigned char>(S[I])))
      ++I;
    size_t NameEnd = I;
    while (NameEnd < S.size() && detail::isIdentChar(S[NameEnd]))
      ++NameEnd;
    PtxEntry E;
    E.Name = S.substr(I, NameEnd - I);
    if (E.Name.empty()) {
      Error = "a .entry without a name at offset " + std::to_string(Pos);
      return false;
    }
    I = NameEnd;
    while (I < S.size() && std::isspace(static_cast<unsigned char>(S[I])))
      ++I;
    if (I < S.size() && S[I] == '(') {
      size_t Close = S.find(')', I);
      if (Close == std::string::npos) {
        Error = "kernel '" + E.Name + "': its parameter list has no ')'";
        return false;
      }
      std::string List = S.substr(I + 1, Close - I - 1);
      size_t Start = 0;
      while (Start <= List.size()) {
        size_t Comma = List.find(',', Start);
        std::string Decl =
            List.substr(Start, Comma == std::string::npos ? std::string::npos : Comma - Start);
        bool Blank = Decl.find_first_not_of(" \t\r\n") == std::string::npos;
        if (!Blank) {
          PtxParam P;
          if (!detail::parseParam(Decl, E.Name, P, Error))
            return false;
          E.Params.push_back(std::move(P));
        } else if (Comma != std::string::npos || !E.Params.empty()) {
          Error = "kernel '" + E.Name + "': an empty parameter in its list";
          return false;
        }
        if (Comma == std::string::npos)
          break;
        Start = Comma + 1;
      }
      Pos = Close;
    }
    Out.push_back(std::move(E));
  }
  return true;
}

/// The instructions written in the body of kernel \p Kernel of \p Ptx:
/// statements ending in ';' that are not directives (.reg, .shared, ...),
/// labels and scope braces left out. A static count of the PTX text, which
/// ptxas turns into about as many SASS instructions (the gpu model scales
/// dynamic counts by it). False, with \p Error, when there is no such
/// entry or its body does not close.
inline bool countEntryInstructions(const std::string &Ptx, const std::string &Kernel,
                                   unsigned &Count, std::string &Error) {
  std::string S = detail::stripComments(Ptx);
  size_t Body = std::string::npos;
  for (size_t Pos = S.find(".entry"); Pos != std::string::npos && Body == std::string::npos;
       Pos = S.find(".entry", Pos + 6)) {
    size_t I = Pos + 6;
    while (I < S.size() && std::isspace(static_cast<unsigned char>(S[I])))
      ++I;
    size_t NameEnd = I;
    while (NameEnd < S.size() && detail::isIdentChar(S[NameEnd]))
      ++NameEnd;
    if (S.compare(I, NameEnd - I, Kernel) != 0 || NameEnd - I != Kernel.size())
      continue;
    size_t Close = NameEnd < S.size() && S[NameEnd] == '(' ? S.find(')', NameEnd) : NameEnd;
    Body = Close == std::string::npos ? Close : S.find('{', Close);
    if (Body == std::string::npos) {
      Error = "kernel '" + Kernel + "': no body";
      return false;
    }
  }
  if (Body == std::string::npos) {
    Error = "no .entry '" + Kernel + "'";
    return false;
  }
  Count = 0;
  int Depth = 0;
  std::string Statement;
  for (size_t I = Body; I < S.size(); ++I) {
    char C = S[I];
    // .loc (debug line) directives end at the line's end, not with ';'.
    // One starts a line (or follows a label, a brace or a statement).
    size_t Before = C == '.' ? S.find_last_not_of(" \t", I - 1) : std::string::npos;
    if (Before != std::string::npos && S.compare(I, 4, ".loc") == 0 &&
        std::strchr("\n:{;", S[Before]) != nullptr) {
      I = S.find('\n', I);
      if (I == std::string::npos)
        break;
      continue;
    }
    if (C == '{')
      ++Depth;
    else if (C == '}' && --Depth == 0)
      return true;
    if (C != ';') {
      Statement += C;
      continue;
    }
    // Drop scope braces, then any labels ("$L__BB0_1:") in front.
    size_t B = Statement.find_first_not_of(" \t\r\n{}");
    for (size_t Colon; B != std::string::npos &&
                       (Colon = Statement.find(':', B)) != std::string::npos &&
                       Statement.find_first_of(" \t\r\n,[", B) > Colon;)
      B = Statement.find_first_not_of(" \t\r\n{}", Colon + 1);
    if (B != std::string::npos && Statement[B] != '.')
      ++Count;
    Statement.clear();
  }
  Error = "kernel '" + Kernel + "': its body does not close";
  return false;
}

/// A module-scope variable: `[.visible|.extern|.weak] .global|.const ...
/// NAME[...] [= {...}];`, as ours, nvcc's and LLVM's PTX declare them.
struct PtxVariable {
  std::string Name;
  bool IsConst = false; ///< .const (a __constant__ variable), else .global
  /// The declared size: the element type's bytes times the array length
  /// (`.b8 w[16]`: 16); 0 where the declaration does not say (`[]`).
  uint64_t Bytes = 0;
};

/// The module-scope .global and .const variables of \p Ptx, in order (what
/// cuModuleGetGlobal finds; messages list them). Declarations inside
/// function bodies are not module scope and are skipped.
inline std::vector<PtxVariable> parsePtxVariables(const std::string &Ptx) {
  std::vector<PtxVariable> Out;
  std::string Text = detail::stripComments(Ptx);
  int Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I <= Text.size(); ++I) {
    char C = I < Text.size() ? Text[I] : ';';
    if (C == '}' && --Depth == 0) {
      Start = I + 1; // after a function body or an initializer
      continue;
    }
    bool Opens = C == '{' && Depth++ == 0;
    if (Depth - Opens != 0 || (C != ';' && C != '\n' && !Opens))
      continue;
    std::string Stmt = Text.substr(Start, I - Start);
    Start = I + 1;
    std::vector<std::string> T = detail::tokenize(Stmt.substr(0, Stmt.find('=')));
    size_t K = 0;
    while (K < T.size() && (T[K] == ".visible" || T[K] == ".extern" || T[K] == ".weak"))
      ++K;
    if (K >= T.size() || (T[K] != ".global" && T[K] != ".const"))
      continue;
    bool IsConst = T[K] == ".const";
    // The declarator is the last word that is not part of an array suffix;
    // the last type word before it gives the element size.
    std::string Name;
    uint64_t Elem = 0, Count = 1;
    for (size_t J = K + 1; J < T.size(); ++J) {
      if (T[J] == "[") {
        unsigned N = 0;
        bool Sized = J + 2 < T.size() && T[J + 2] == "]" && detail::parseUnsigned(T[J + 1], N);
        Count = Sized ? Count * N : 0;
        while (J < T.size() && T[J] != "]")
          ++J;
        continue;
      }
      if (T[J].size() > 1 && T[J][0] == '.' && detail::typeBytes(T[J].substr(1)))
        Elem = detail::typeBytes(T[J].substr(1));
      else if (!T[J].empty() && T[J][0] != '.')
        Name = T[J];
    }
    if (!Name.empty())
      Out.push_back({Name, IsConst, Elem * Count});
  }
  return Out;
}

inline const PtxEntry *findEntry(const std::vector<PtxEntry> &Entries,
                                 const std::string &Name) {
  for (const PtxEntry &E : Entries)
    if (E.Name == Name)
      return &E;
  return nullptr;
}

/// Argument values laid out as the kernel's parameter space: Offsets[I] is
/// where parameter I starts (aligned to its type), and pointers() is what
/// cuLaunchKernel's kernelParams wants.
struct PackedParams {
  std::vector<unsigned char> Bytes;
  std::vector<size_t> Offsets;
  std::vector<void *> Pointers;

  void **pointers() { return Pointers.empty() ? nullptr : Pointers.data(); }
};

/// Packs one value per parameter of \p E (the low bytes of each, little
/// endian). A value wider than its parameter, a count that differs from the
/// signature, or an array parameter (a struct passed by value) is an error
/// naming the kernel and the parameter.
inline bool packParams(const PtxEntry &E, const std::vector<uint64_t> &Values,
                       PackedParams &Out, std::string &Error) {
  Out = PackedParams();
  if (Values.size() != E.Params.size()) {
    Error = "kernel '" + E.Name + "' takes " + std::to_string(E.Params.size()) +
            " parameters but " + std::to_string(Values.size()) + " arguments were given";
    return false;
  }
  size_t Size = 0;
  for (size_t I = 0; I < E.Params.size(); ++I) {
    const PtxParam &P = E.Params[I];
    std::string Which = "kernel '" + E.Name + "' parameter " + std::to_string(I + 1) +
                        " '" + P.Name + "' (." + P.Type +
                        (P.isArray() ? "[" + std::to_string(P.Count) + "]" : "") + ")";
    if (P.isArray()) {
      Error = Which + ": parameters passed by value as byte arrays (structs) are not "
                      "supported; pass a pointer to the struct instead";
      return false;
    }
    if (P.bytes() < 8 && (Values[I] >> (8 * P.bytes())) != 0) {
      Error = Which + ": the value " + std::to_string(Values[I]) + " does not fit in " +
              std::to_string(P.bytes()) + " bytes";
      return false;
    }
    Size = (Size + P.Align - 1) / P.Align * P.Align;
    Out.Offsets.push_back(Size);
    Size += P.bytes();
  }
  Out.Bytes.assign(Size, 0);
  for (size_t I = 0; I < E.Params.size(); ++I) {
    uint64_t V = Values[I];
    for (unsigned B = 0; B < E.Params[I].bytes(); ++B)
      Out.Bytes[Out.Offsets[I] + B] = static_cast<unsigned char>(V >> (8 * B));
    Out.Pointers.push_back(Out.Bytes.data() + Out.Offsets[I]);
  }
  return true;
}

} // namespace tandem::ptx
