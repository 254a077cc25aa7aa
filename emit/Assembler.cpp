//===- Assembler.cpp - SIMT assembly text to kernel images ----------------===//
//
// Three passes over the source, so labels, parameters and const labels may
// be used before they are defined:
//   1. parse: split every line into labels, a directive or an instruction;
//      build the kernels (parameters, shared/local sizes), the const and
//      data sections and the label tables; instructions keep their operand
//      tokens. A label in .const or .data stands for its offset in its
//      section; `.size LABEL, BYTES[, NAME]` makes it a symbol of the image
//      (a variable the host finds by name).
//   2. layout: size the pseudo-instructions (li/lif take one or two words,
//      depending on their value) and give every instruction and code label
//      its byte address; kernels follow one another in Code.
//   3. encode: parse every instruction's operands by walking its AsmString
//      template and operand kinds from the generated tables, then encode.
// Every pass keeps going after an error so one run reports them all; the
// diagnostics are sorted by source position before they are printed.
//
// Input invariants: none; the text is untrusted. Guarantees: see Assembler.h.
//
//===----------------------------------------------------------------------===//

#include "Assembler.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <limits>
#include <optional>

using namespace llvm;

namespace tandem {
namespace {

using simt::DecodedInst;
using simt::Field;
using simt::InstrDesc;
using simt::Opcode;
using simt::OperandKind;

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

/// Collects diagnostics, LLVM style, and reports them sorted by position.
/// Notes attach to the error before them and travel with it.
class Diagnostics {
public:
  Diagnostics(const SourceMgr &SM, StringRef FileName)
      : SM(SM), FileName(FileName) {}

  void error(SMLoc Loc, const Twine &Msg) {
    ++NumErrors;
    Entries.push_back({Loc, render(Loc, SourceMgr::DK_Error, Msg)});
  }
  /// An error about the file as a whole (no line to point at).
  void fileError(const Twine &Msg) {
    ++NumErrors;
    std::string Text;
    raw_string_ostream OS(Text);
    SMDiagnostic(FileName, SourceMgr::DK_Error, Msg.str())
        .print(nullptr, OS, /*ShowColors=*/false);
    Entries.push_back({SMLoc(), std::move(Text)});
  }
  void note(SMLoc Loc, const Twine &Msg) {
    if (!Entries.empty())
      Entries.back().Text += render(Loc, SourceMgr::DK_Note, Msg);
  }

  unsigned numErrors() const { return NumErrors; }
  /// Past this many errors the passes stop: the input is likely not assembly
  /// at all, and only the first MaxAssemblerErrors are shown anyway.
  bool full() const { return NumErrors >= 4 * MaxAssemblerErrors; }

  Error takeError() {
    // File-level errors (no location) go last, after the line-level ones.
    auto Key = [](const Entry &E) {
      return E.Loc.isValid() ? E.Loc.getPointer()
                             : reinterpret_cast<const char *>(UINTPTR_MAX);
    };
    std::stable_sort(Entries.begin(), Entries.end(),
                     [&](const Entry &A, const Entry &B) {
                       return std::less<const char *>()(Key(A), Key(B));
                     });
    std::string Text;
    for (size_t I = 0; I < Entries.size() && I < MaxAssemblerErrors; ++I)
      Text += Entries[I].Text;
    if (Entries.size() > MaxAssemblerErrors)
      Text += formatv("{0}: error: too many errors; only the first {1} are "
                      "shown\n",
                      FileName, MaxAssemblerErrors)
                  .str();
    if (!Text.empty() && Text.back() == '\n')
      Text.pop_back();
    return createStringError(inconvertibleErrorCode(), Text);
  }

private:
  struct Entry {
    SMLoc Loc;
    std::string Text;
  };

  std::string render(SMLoc Loc, SourceMgr::DiagKind Kind, const Twine &Msg) {
    std::string Text;
    raw_string_ostream OS(Text);
    SM.GetMessage(Loc, Kind, Msg).print(nullptr, OS, /*ShowColors=*/false);
    return Text;
  }

  const SourceMgr &SM;
  std::string FileName;
  std::vector<Entry> Entries;
  unsigned NumErrors = 0;
};

//===----------------------------------------------------------------------===//
// Tokens
//===----------------------------------------------------------------------===//

enum class TokKind {
  Ident,   ///< mnemonics, labels, register names, directive names, kinds
  AtIdent, ///< @param
  Percent, ///< %tid.x
  Number,  ///< 12, 0x1f, 1.5, 2e-3 (validated where it is used)
  Punct,   ///< , [ ] + - :
  Unknown, ///< any other single character
  End,     ///< end of the line (points just past its last character)
};

struct Token {
  TokKind Kind = TokKind::End;
  StringRef Text; ///< points into the source buffer, so it is also a location

  SMLoc loc() const { return SMLoc::getFromPointer(Text.data()); }
  bool is(char C) const {
    return Kind == TokKind::Punct && Text.size() == 1 && Text[0] == C;
  }
  bool isEnd() const { return Kind == TokKind::End; }
  /// How the token is named in messages.
  std::string describe() const {
    return isEnd() ? std::string("end of line") : ("'" + Text + "'").str();
  }
};

using simt::isAsmIdentifierChar;
using simt::isAsmIdentifierStart;

/// Removes a trailing `#` or `//` comment.
StringRef stripComment(StringRef Line) {
  size_t Hash = Line.find('#');
  size_t Slashes = Line.find("//");
  return Line.substr(0, std::min(Hash, Slashes));
}

size_t lexNumber(StringRef S) {
  bool Hex = S.starts_with_insensitive("0x");
  size_t I = 0;
  while (I < S.size()) {
    char C = S[I];
    if (isAsmIdentifierChar(C)) {
      ++I;
      continue;
    }
    // The sign of a float exponent, as in 2e-3.
    bool AfterExponent = I > 0 && (S[I - 1] == 'e' || S[I - 1] == 'E');
    if (!Hex && AfterExponent && (C == '+' || C == '-')) {
      ++I;
      continue;
    }
    break;
  }
  return I;
}

/// Splits one line (without its comment) into tokens, ending with End.
SmallVector<Token, 16> lexLine(StringRef Line) {
  SmallVector<Token, 16> Toks;
  size_t I = 0;
  auto Take = [&](TokKind Kind, size_t Len) {
    Toks.push_back({Kind, Line.substr(I, Len)});
    I += Len;
  };
  auto IdentLength = [&](size_t From) {
    size_t J = From;
    while (J < Line.size() && isAsmIdentifierChar(Line[J]))
      ++J;
    return J - I;
  };
  while (I < Line.size()) {
    char C = Line[I];
    if (isSpace(C)) {
      ++I;
    } else if (isDigit(C)) {
      Take(TokKind::Number, lexNumber(Line.substr(I)));
    } else if (isAsmIdentifierStart(C)) {
      Take(TokKind::Ident, IdentLength(I));
    } else if (C == '@') {
      Take(TokKind::AtIdent, IdentLength(I + 1));
    } else if (C == '%') {
      Take(TokKind::Percent, IdentLength(I + 1));
    } else if (StringRef(",[]+-:").contains(C)) {
      Take(TokKind::Punct, 1);
    } else {
      Take(TokKind::Unknown, 1);
    }
  }
  Toks.push_back({TokKind::End, Line.substr(Line.size())});
  return Toks;
}

class TokenCursor {
public:
  explicit TokenCursor(ArrayRef<Token> Toks) : Toks(Toks) {}
  const Token &peek(size_t Ahead = 0) const {
    return Toks[std::min(Pos + Ahead, Toks.size() - 1)];
  }
  const Token &next() {
    const Token &T = peek();
    if (!T.isEnd())
      ++Pos;
    return T;
  }
  bool atEnd() const { return peek().isEnd(); }
  ArrayRef<Token> rest() const { return Toks.drop_front(Pos); }

private:
  ArrayRef<Token> Toks;
  size_t Pos = 0;
};

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

/// The closest candidate to \p Word, if it is close enough to be a typo.
std::optional<std::string> closest(StringRef Word,
                                   ArrayRef<std::string> Candidates) {
  unsigned MaxDist = Word.size() <= 3 ? 1 : Word.size() <= 6 ? 2 : 3;
  std::optional<std::string> Best;
  unsigned BestDist = MaxDist + 1;
  for (const std::string &C : Candidates) {
    unsigned D = Word.edit_distance(C, true, MaxDist);
    if (D < BestDist) {
      BestDist = D;
      Best = C;
    }
  }
  return Best;
}

std::string didYouMean(StringRef Word, ArrayRef<std::string> Candidates,
                       StringRef Prefix = "") {
  if (auto Best = closest(Word, Candidates))
    return ("; did you mean '" + Prefix + *Best + "'?").str();
  return "";
}

/// Integer literal: decimal or 0x hex. Values past 32 bits are returned as
/// UINT64_MAX so the caller can tell "too large" from "not a number".
std::optional<uint64_t> parseIntLiteral(StringRef S) {
  APInt V;
  bool Hex = S.starts_with_insensitive("0x");
  StringRef Digits = Hex ? S.drop_front(2) : S;
  if (Digits.empty() || !llvm::all_of(Digits, Hex ? isHexDigit : isDigit) ||
      Digits.getAsInteger(Hex ? 16 : 10, V))
    return std::nullopt;
  if (V.getActiveBits() > 32)
    return std::numeric_limits<uint64_t>::max();
  return V.getZExtValue();
}

using simt::parseRegisterName;

bool isCIdentifier(StringRef S) {
  if (S.empty() || !(isAlpha(S[0]) || S[0] == '_'))
    return false;
  return llvm::all_of(S, [](char C) { return isAlnum(C) || C == '_'; });
}

bool isImmediateKind(OperandKind K) {
  return K == OperandKind::SImm || K == OperandKind::UImm ||
         K == OperandKind::PCRel;
}

const char *operandName(Field F) {
  switch (F) {
  case Field::Rd:
    return "rd";
  case Field::Rs1:
    return "rs1";
  case Field::Rs2:
    return "rs2";
  case Field::Rs3:
    return "rs3";
  case Field::Imm:
    return "imm";
  }
  return "?";
}

void setField(DecodedInst &I, Field F, int64_t V) {
  switch (F) {
  case Field::Rd:
    I.Rd = static_cast<uint8_t>(V);
    break;
  case Field::Rs1:
    I.Rs1 = static_cast<uint8_t>(V);
    break;
  case Field::Rs2:
    I.Rs2 = static_cast<uint8_t>(V);
    break;
  case Field::Rs3:
    I.Rs3 = static_cast<uint8_t>(V);
    break;
  case Field::Imm:
    I.Imm = static_cast<int32_t>(V);
    break;
  }
}

/// "ld.global.u32 rd, [rs1 + imm]": how an instruction is written.
std::string usage(const InstrDesc &D) {
  std::string S = D.Mnemonic;
  StringRef Asm = D.AsmString;
  if (!Asm.empty())
    S += " ";
  for (char C : Asm)
    if (C != '$')
      S += C;
  return S;
}

std::vector<std::string> allMnemonics() {
  std::vector<std::string> Names;
  for (unsigned I = 0, E = simt::numOpcodes(); I != E; ++I)
    Names.push_back(simt::getDesc(simt::opcodeAt(I)).Mnemonic);
  Names.push_back("li");
  Names.push_back("lif");
  return Names;
}

std::string hex(uint64_t V) { return "0x" + utohexstr(V, /*LowerCase=*/true); }

//===----------------------------------------------------------------------===//
// AsmString templates
//===----------------------------------------------------------------------===//

/// One piece of an AsmString: an operand placeholder or a punctuation char.
struct TemplatePiece {
  bool IsOperand = false;
  char Punct = 0;
  unsigned OperandIndex = 0; ///< into InstrDesc::Operands (assembly order)
};

SmallVector<TemplatePiece, 12> splitTemplate(const InstrDesc &D) {
  SmallVector<TemplatePiece, 12> Pieces;
  StringRef Asm = D.AsmString;
  unsigned NextOperand = 0;
  for (size_t I = 0; I < Asm.size(); ++I) {
    char C = Asm[I];
    if (isSpace(C))
      continue;
    if (C != '$') {
      Pieces.push_back({false, C, 0});
      continue;
    }
    while (I + 1 < Asm.size() && isAlnum(Asm[I + 1]))
      ++I;
    Pieces.push_back({true, 0, NextOperand++});
  }
  return Pieces;
}

//===----------------------------------------------------------------------===//
// Kernels, labels and symbols
//===----------------------------------------------------------------------===//

struct CodeLabel {
  SMLoc Loc;
  size_t ItemIndex = 0; ///< the code item it precedes (== count: kernel end)
  uint32_t Address = 0; ///< byte address in Code, set by the layout pass
};

struct ConstLabel {
  SMLoc Loc;
  uint32_t Offset = 0;
  bool InData = false; ///< a .data label (else .const)
};

/// A `.size` directive: the label it names becomes an image symbol.
struct SizedLabel {
  SMLoc Loc; ///< of the directive
  std::string Label;
  std::string Name; ///< the symbol's name: NAME if given, else the label
  uint32_t Size = 0;
};

/// One word-producing statement of a kernel.
struct CodeItem {
  enum Kind { Instr, Li, Lif, Word } K = Instr;
  Opcode Op = Opcode::INVALID;
  Token Mnemonic;
  SmallVector<Token, 8> Operands; ///< ends with End
  uint32_t Value = 0;             ///< Word: the word; Li/Lif: the constant
  uint8_t Rd = 0;                 ///< Li/Lif
  bool Valid = true;              ///< Li/Lif operands parsed
  uint32_t PC = 0;
  uint8_t Words = 1;
};

struct AsmKernel {
  KernelInfo Info;
  SMLoc Loc;
  std::vector<CodeItem> Items;
  StringMap<CodeLabel> Labels;
  StringMap<size_t> ParamIndex;
  SMLoc SharedLoc, LocalLoc;
  unsigned MaxReg = 0;
};

/// What symbols an operand may name at the point it is parsed.
struct SymbolContext {
  AsmKernel *Kernel = nullptr; ///< code labels, params; also MaxReg
  const StringMap<ConstLabel> *ConstLabels = nullptr;
  bool LabelsResolved = false; ///< code label addresses are final
  /// Every kernel, to tell a label of another kernel from a typo.
  const std::vector<AsmKernel> *AllKernels = nullptr;
};

//===----------------------------------------------------------------------===//
// Operand parsing
//===----------------------------------------------------------------------===//

/// Parses operands of one statement, reporting into Diagnostics. Every
/// parse function returns nullopt after it has reported an error.
class OperandParser {
public:
  OperandParser(Diagnostics &Diags, const SymbolContext &Syms)
      : Diags(Diags), Syms(Syms) {}

  /// A register operand r0..r63.
  std::optional<unsigned> parseRegister(TokenCursor &C, const Twine &What) {
    const Token &T = C.peek();
    std::optional<unsigned> N;
    if (T.Kind == TokKind::Ident)
      N = parseRegisterName(T.Text);
    if (!N) {
      Diags.error(T.loc(), "expected a register (r0..r63) for " + What +
                               ", found " + T.describe());
      return std::nullopt;
    }
    if (T.Text[0] == 'R') {
      Diags.error(T.loc(),
                  "register names are lower case: write 'r" + Twine(*N) + "'");
      return std::nullopt;
    }
    if (*N >= simt::NumEncodableGPRs) {
      Diags.error(T.loc(), "register " + T.Text + " out of range (r0..r" +
                               Twine(simt::NumEncodableGPRs - 1) + ")");
      return std::nullopt;
    }
    C.next();
    if (Syms.Kernel)
      Syms.Kernel->MaxReg = std::max(Syms.Kernel->MaxReg, *N);
    return *N;
  }

  /// A special register, %tid.x and friends: its index.
  std::optional<unsigned> parseSpecialReg(TokenCursor &C, const Twine &What) {
    const Token &T = C.peek();
    if (T.Kind != TokKind::Percent) {
      Diags.error(T.loc(), "expected a special register (such as %tid.x) "
                           "for " +
                               What + ", found " + T.describe());
      return std::nullopt;
    }
    StringRef Name = T.Text.drop_front(1);
    std::optional<simt::SpecialReg> R = simt::lookupSpecialReg(Name);
    if (!R) {
      std::vector<std::string> Names;
      for (const simt::SpecialRegDesc &D : simt::specialRegs())
        Names.push_back(D.Name);
      Diags.error(T.loc(), "unknown special register '" + T.Text + "'" +
                               didYouMean(Name, Names, "%"));
      return std::nullopt;
    }
    C.next();
    return static_cast<unsigned>(*R); // the enum value is the register index
  }

  enum class ExprUse { Data, CodeAddress, NumbersOnly };

  /// term (('+'|'-') term)*, each term optionally negated; terms are
  /// numbers, labels and @params. Only numbers with NumbersOnly.
  std::optional<int64_t> parseExpr(TokenCursor &C, ExprUse Use,
                                   const Twine &What) {
    int64_t Sum = 0;
    bool First = true;
    while (true) {
      int Sign = 1;
      if (!First) {
        if (!C.peek().is('+') && !C.peek().is('-'))
          return Sum;
        Sign = C.next().is('-') ? -1 : 1;
      }
      while (C.peek().is('+') || C.peek().is('-'))
        Sign *= C.next().is('-') ? -1 : 1;
      std::optional<int64_t> Term = parseTerm(C, Use, What);
      if (!Term)
        return std::nullopt;
      Sum += Sign * *Term;
      First = false;
    }
  }

  /// An immediate of \p Op with its range from the ISA tables.
  std::optional<int64_t> parseImmediate(TokenCursor &C, const InstrDesc &D,
                                        Opcode Op, OperandKind Kind,
                                        uint32_t PC, const Twine &What) {
    SMLoc Loc = C.peek().loc();
    bool IsBranch = Kind == OperandKind::PCRel;
    std::optional<int64_t> V =
        parseExpr(C, IsBranch ? ExprUse::CodeAddress : ExprUse::Data, What);
    if (!V)
      return std::nullopt;
    auto [Min, Max] = simt::immRange(Op);
    if (!IsBranch) {
      if (*V < Min || *V > Max) {
        Diags.error(Loc, formatv("immediate {0} out of range [{1}, {2}] for "
                                 "{3}",
                                 *V, Min, Max, D.Mnemonic));
        return std::nullopt;
      }
      return *V;
    }
    return branchOffset(Loc, *V, D, PC, Min, Max);
  }

  /// A decimal float literal (1.5, -2e-3, inf, nan): its fp32 bits.
  std::optional<uint32_t> parseFloat(TokenCursor &C, const Twine &What) {
    SMLoc Loc = C.peek().loc();
    std::string Text;
    while (C.peek().is('-') || C.peek().is('+'))
      Text += C.next().Text;
    const Token &T = C.peek();
    if (T.Kind != TokKind::Number && T.Kind != TokKind::Ident) {
      Diags.error(T.loc(), "expected a float literal (such as 1.5, -2e-3, "
                           "inf, nan) for " +
                               What + ", found " + T.describe());
      return std::nullopt;
    }
    Text += T.Text;
    C.next();
    APFloat F(APFloat::IEEEsingle());
    Expected<APFloat::opStatus> St =
        F.convertFromString(Text, APFloat::rmNearestTiesToEven);
    if (!St) {
      consumeError(St.takeError());
      Diags.error(Loc, "invalid float literal '" + Text + "'" +
                           (StringRef(Text).contains_insensitive("0x")
                                ? "; for a bit pattern use 'li'"
                                : ""));
      return std::nullopt;
    }
    if (*St & APFloat::opOverflow) {
      Diags.error(Loc, "float literal '" + Text +
                           "' overflows fp32 (largest "
                           "finite value 3.4028235e38)");
      return std::nullopt;
    }
    return static_cast<uint32_t>(F.bitcastToAPInt().getZExtValue());
  }

  /// One real instruction's operands, following its AsmString template.
  std::optional<DecodedInst> parseInstOperands(TokenCursor &C, Opcode Op,
                                               const Token &Mnemonic,
                                               uint32_t PC) {
    const InstrDesc &D = simt::getDesc(Op);
    DecodedInst I;
    I.Op = Op;
    SmallVector<TemplatePiece, 12> Pieces = splitTemplate(D);
    for (size_t P = 0; P < Pieces.size(); ++P) {
      const TemplatePiece &Piece = Pieces[P];
      if (Piece.IsOperand) {
        if (Piece.OperandIndex >= D.NumOperands) {
          Diags.error(Mnemonic.loc(),
                      "internal error: the ISA tables list fewer operands "
                      "than the template '" +
                          Twine(D.AsmString) + "' of " + D.Mnemonic);
          return std::nullopt;
        }
        const simt::OperandInfo &O = D.Operands[Piece.OperandIndex];
        if (C.atEnd())
          return tooFew(C, D);
        std::optional<int64_t> V = parseOperand(C, D, Op, O, PC);
        if (!V)
          return std::nullopt;
        setField(I, O.Where, *V);
        continue;
      }
      // "[$rs1 + $imm]" also accepts "[rN - IMM]" and "[rN]".
      bool OffsetSign =
          Piece.Punct == '+' && P + 1 < Pieces.size() &&
          Pieces[P + 1].IsOperand &&
          isImmediateKind(D.Operands[Pieces[P + 1].OperandIndex].Kind);
      if (OffsetSign) {
        if (C.peek().is('-'))
          continue; // the expression reads the sign
        if (P + 2 < Pieces.size() && !Pieces[P + 2].IsOperand &&
            C.peek().is(Pieces[P + 2].Punct)) {
          ++P; // no offset written: the immediate stays 0
          continue;
        }
      }
      if (C.peek().is(Piece.Punct)) {
        C.next();
        continue;
      }
      bool OperandsLeft =
          llvm::any_of(ArrayRef(Pieces).drop_front(P),
                       [](const TemplatePiece &Q) { return Q.IsOperand; });
      if (C.atEnd() && OperandsLeft)
        return tooFew(C, D);
      Diags.error(C.peek().loc(), "expected '" + Twine(Piece.Punct) +
                                      "', found " + C.peek().describe() +
                                      " (usage: " + usage(D) + ")");
      return std::nullopt;
    }
    if (!C.atEnd()) {
      const Token &T = C.peek();
      if (T.is(','))
        Diags.error(T.loc(), "too many operands for " + Twine(D.Mnemonic) +
                                 " (usage: " + usage(D) + ")");
      else
        Diags.error(T.loc(), "unexpected " + T.describe() +
                                 " after the operands of " + D.Mnemonic +
                                 " (usage: " + usage(D) + ")");
      return std::nullopt;
    }
    return I;
  }

private:
  std::nullopt_t tooFew(TokenCursor &C, const InstrDesc &D) {
    Diags.error(C.peek().loc(), "too few operands for " + Twine(D.Mnemonic) +
                                    " (usage: " + usage(D) + ")");
    return std::nullopt;
  }

  std::optional<int64_t> parseOperand(TokenCursor &C, const InstrDesc &D,
                                      Opcode Op, const simt::OperandInfo &O,
                                      uint32_t PC) {
    // "operand X of MNEMONIC" is only rendered when a message needs it: the
    // Twine lives to the end of each call's full expression (building the
    // string for every operand was a fifth of assembling a large kernel).
    auto Name = operandName(O.Where);
    switch (O.Kind) {
    case OperandKind::GPR:
      return parseRegister(C, "operand " + Twine(Name) + " of " + D.Mnemonic);
    case OperandKind::SpecialReg:
      return parseSpecialReg(C, "operand " + Twine(Name) + " of " + D.Mnemonic);
    case OperandKind::SImm:
    case OperandKind::UImm:
    case OperandKind::PCRel:
      return parseImmediate(C, D, Op, O.Kind, PC,
                            "operand " + Twine(Name) + " of " + D.Mnemonic);
    }
    return std::nullopt;
  }

  std::optional<int64_t> branchOffset(SMLoc Loc, int64_t Target,
                                      const InstrDesc &D, uint32_t PC,
                                      int64_t Min, int64_t Max) {
    if (Target < 0 || Target > std::numeric_limits<uint32_t>::max()) {
      Diags.error(Loc, "branch target " + Twine(Target) +
                           " is not a code address (0..0xffffffff)");
      return std::nullopt;
    }
    if (Target % 4 != 0) {
      Diags.error(Loc, "branch target " + hex(Target) +
                           " is not a multiple of 4 (instructions are 4-byte "
                           "aligned)");
      return std::nullopt;
    }
    // Code addresses are 32 bits and pc + 4*imm wraps, as in the hardware.
    int64_t Words =
        static_cast<int32_t>(static_cast<uint32_t>(Target) - PC) / 4;
    if (Words < Min || Words > Max) {
      Diags.error(Loc,
                  formatv("branch target {0} out of range for {1}: "
                          "offset {2} instructions from pc {3}, allowed "
                          "[{4}, {5}]",
                          hex(Target), D.Mnemonic, Words, hex(PC), Min, Max));
      return std::nullopt;
    }
    return Words;
  }

  std::optional<int64_t> parseTerm(TokenCursor &C, ExprUse Use,
                                   const Twine &What) {
    const Token &T = C.peek();
    switch (T.Kind) {
    case TokKind::Number: {
      std::optional<uint64_t> V = parseIntLiteral(T.Text);
      if (!V) {
        Diags.error(T.loc(), "invalid integer '" + T.Text +
                                 "' (write decimal or 0x hex)");
        return std::nullopt;
      }
      if (*V > std::numeric_limits<uint32_t>::max()) {
        Diags.error(T.loc(), "integer " + T.Text + " does not fit in 32 bits");
        return std::nullopt;
      }
      C.next();
      return static_cast<int64_t>(*V);
    }
    case TokKind::Ident:
      if (Use == ExprUse::NumbersOnly)
        break;
      if (std::optional<unsigned> N = parseRegisterName(T.Text)) {
        Diags.error(T.loc(), "expected an immediate for " + What +
                                 ", found register " + T.Text);
        return std::nullopt;
      }
      return resolveLabel(C.next(), Use);
    case TokKind::AtIdent:
      if (Use == ExprUse::NumbersOnly)
        break;
      return resolveParam(C.next(), Use);
    case TokKind::Percent:
      Diags.error(T.loc(), "special register " + T.Text +
                               " cannot be used as an immediate (read it "
                               "with 's2r rd, " +
                               T.Text + "')");
      return std::nullopt;
    default:
      break;
    }
    Diags.error(T.loc(), "expected " +
                             Twine(Use == ExprUse::NumbersOnly
                                       ? "a number"
                                       : "an immediate (number, label or "
                                         "@param)") +
                             " for " + What + ", found " + T.describe());
    return std::nullopt;
  }

  std::optional<int64_t> resolveLabel(const Token &T, ExprUse Use) {
    StringRef Name = T.Text;
    AsmKernel *K = Syms.Kernel;
    const StringMap<ConstLabel> *Consts = Syms.ConstLabels;
    if (Use == ExprUse::CodeAddress) {
      if (K) {
        auto It = K->Labels.find(Name);
        if (It != K->Labels.end())
          return Syms.LabelsResolved ? It->second.Address : 0;
      }
      if (Consts && Consts->count(Name)) {
        Diags.error(T.loc(), "'" + Name +
                                 "' is a .const label; a branch needs a code "
                                 "label of this kernel");
        return std::nullopt;
      }
      std::vector<std::string> Names;
      if (K)
        for (const auto &L : K->Labels)
          Names.push_back(L.getKey().str());
      Diags.error(T.loc(), "undefined label '" + Name + "'" +
                               (K ? " in kernel '" + K->Info.Name + "'"
                                  : std::string()) +
                               didYouMean(Name, Names) + otherKernelHint(Name));
      return std::nullopt;
    }
    if (Consts) {
      auto It = Consts->find(Name);
      if (It != Consts->end())
        return It->second.Offset;
    }
    if (K && K->Labels.count(Name)) {
      Diags.error(T.loc(), "code label '" + Name +
                               "' cannot be used as a data immediate (only "
                               "branches take code labels)");
      return std::nullopt;
    }
    std::vector<std::string> Names;
    if (Consts)
      for (const auto &L : *Consts)
        Names.push_back(L.getKey().str());
    Diags.error(T.loc(), "undefined symbol '" + Name +
                             "' (not a label of the .const or .data "
                             "section)" +
                             didYouMean(Name, Names));
    return std::nullopt;
  }

  /// "; 'x' is a label of kernel 'k', and labels are local to their kernel"
  std::string otherKernelHint(StringRef Name) {
    if (!Syms.AllKernels)
      return "";
    for (const AsmKernel &Other : *Syms.AllKernels)
      if (&Other != Syms.Kernel && Other.Labels.count(Name))
        return ("; '" + Name + "' is a label of kernel '" + Other.Info.Name +
                "', and labels are local to their kernel")
            .str();
    return "";
  }

  std::optional<int64_t> resolveParam(const Token &T, ExprUse Use) {
    StringRef Name = T.Text.drop_front(1);
    if (Use == ExprUse::CodeAddress) {
      Diags.error(T.loc(), "a parameter offset (" + T.Text +
                               ") cannot be a branch target");
      return std::nullopt;
    }
    AsmKernel *K = Syms.Kernel;
    if (K) {
      auto It = K->ParamIndex.find(Name);
      if (It != K->ParamIndex.end())
        return K->Info.Params[It->second].Offset;
    }
    std::vector<std::string> Names;
    if (K)
      for (const KernelParam &P : K->Info.Params)
        Names.push_back(P.Name);
    std::string Fix = didYouMean(Name, Names, "@");
    if (Fix.empty())
      Fix = ("; declare it with '.param " + Name + " u32' (or ptr, s32, f32)")
                .str();
    Diags.error(T.loc(),
                "unknown parameter '" + T.Text + "'" +
                    (K ? " of kernel '" + K->Info.Name + "'" : std::string()) +
                    Fix);
    return std::nullopt;
  }

  Diagnostics &Diags;
  const SymbolContext &Syms;
};

/// What a mnemonic names: a real instruction or one of the pseudos.
struct MnemonicInfo {
  CodeItem::Kind K = CodeItem::Instr;
  Opcode Op = Opcode::INVALID;
};

std::optional<MnemonicInfo> resolveMnemonic(const Token &T,
                                            Diagnostics &Diags) {
  if (T.Text == "li")
    return MnemonicInfo{CodeItem::Li, Opcode::INVALID};
  if (T.Text == "lif")
    return MnemonicInfo{CodeItem::Lif, Opcode::INVALID};
  if (std::optional<Opcode> Op = simt::lookupMnemonic(T.Text))
    return MnemonicInfo{CodeItem::Instr, *Op};
  std::string Lower = T.Text.lower();
  if (Lower != T.Text &&
      (simt::lookupMnemonic(Lower) || Lower == "li" || Lower == "lif")) {
    Diags.error(T.loc(), "mnemonics are lower case: write '" + Lower + "'");
    return std::nullopt;
  }
  Diags.error(T.loc(), "unknown instruction '" + T.Text + "'" +
                           didYouMean(T.Text, allMnemonics()));
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// The assembler proper
//===----------------------------------------------------------------------===//

class Assembler {
public:
  Assembler(const SourceMgr &SM, StringRef FileName)
      : SM(SM), FileName(FileName), Diags(SM, FileName) {}

  Expected<KernelImage> run() {
    parseLines();
    checkKernels();
    checkDataBase();
    checkSymbols();
    layout();
    encode();
    if (Diags.numErrors())
      return Diags.takeError();
    return buildImage();
  }

private:
  enum class Section { None, Kernel, Const, Data };

  //===--- Pass 1: lines
  //---------------------------------------------------===//

  void parseLines() {
    StringRef Text = SM.getMemoryBuffer(SM.getMainFileID())->getBuffer();
    while (!Text.empty() && !Diags.full()) {
      auto [Line, Rest] = Text.split('\n');
      Text = Rest;
      parseLine(stripComment(Line.rtrim('\r')));
    }
  }

  void parseLine(StringRef Line) {
    SmallVector<Token, 16> Toks = lexLine(Line);
    TokenCursor C(Toks);
    while (C.peek(1).is(':')) {
      defineLabel(C.peek());
      C.next();
      C.next();
    }
    if (C.atEnd())
      return;
    const Token &Head = C.next();
    if (Head.Kind == TokKind::Ident && Head.Text.starts_with("."))
      return parseDirective(Head, C);
    if (Head.Kind == TokKind::Ident)
      return addInstruction(Head, C);
    Diags.error(Head.loc(), "expected a label, directive or instruction, "
                            "found " +
                                Head.describe());
  }

  void defineLabel(const Token &T) {
    if (T.Kind != TokKind::Ident || isDigit(T.Text[0])) {
      Diags.error(T.loc(), "invalid label name " + T.describe() +
                               ": a label is an identifier (letters, digits, "
                               "'_', '.'; not starting with a digit)");
      return;
    }
    if (parseRegisterName(T.Text)) {
      Diags.error(T.loc(), "label '" + T.Text +
                               "' would read as a register; choose another "
                               "name");
      return;
    }
    if (Sec == Section::None) {
      Diags.error(T.loc(), "label '" + T.Text +
                               "' outside a kernel, .const or .data section; "
                               "start one with '.kernel NAME', '.const' or "
                               "'.data'");
      return;
    }
    if (isDataSection(Sec)) {
      auto [It, New] = ConstLabels.try_emplace(
          T.Text, ConstLabel{T.loc(), static_cast<uint32_t>(bytes().size()),
                             Sec == Section::Data});
      if (!New)
        duplicate(T, "label", It->second.Loc);
      return;
    }
    AsmKernel &K = Kernels.back();
    auto [It, New] =
        K.Labels.try_emplace(T.Text, CodeLabel{T.loc(), K.Items.size(), 0});
    if (!New)
      duplicate(T, "label", It->second.Loc);
  }

  void duplicate(const Token &T, StringRef What, SMLoc Previous) {
    Diags.error(T.loc(), "duplicate " + What + " '" + T.Text + "'");
    Diags.note(Previous, "previous definition is here");
  }

  void addInstruction(const Token &Mnemonic, TokenCursor &C) {
    if (Sec != Section::Kernel) {
      Diags.error(Mnemonic.loc(),
                  isDataSection(Sec)
                      ? "instruction '" + Mnemonic.Text + "' in the " +
                            sectionName() +
                            " section; start a kernel with '.kernel NAME' "
                            "first"
                      : "instruction '" + Mnemonic.Text +
                            "' outside a kernel; start one with '.kernel "
                            "NAME'");
      return;
    }
    std::optional<MnemonicInfo> MI = resolveMnemonic(Mnemonic, Diags);
    if (!MI)
      return;
    CodeItem Item;
    Item.K = MI->K;
    Item.Op = MI->Op;
    Item.Mnemonic = Mnemonic;
    Item.Operands.append(C.rest().begin(), C.rest().end());
    Kernels.back().Items.push_back(std::move(Item));
  }

  //===--- Directives
  //------------------------------------------------------===//

  void parseDirective(const Token &D, TokenCursor &C) {
    StringRef Name = D.Text;
    if (Name == ".kernel")
      return parseKernel(C);
    if (Name == ".const") {
      Sec = Section::Const;
      return expectEnd(C, ".const");
    }
    if (Name == ".data") {
      Sec = Section::Data;
      return expectEnd(C, ".data");
    }
    if (Name == ".data_base")
      return parseDataBase(D, C);
    if (Name == ".size")
      return parseSymbolSize(D, C);
    if (Name == ".param" || Name == ".shared" || Name == ".local") {
      if (!requireSection(D, Section::Kernel))
        return;
      if (Name == ".param")
        return parseParam(C);
      return parseSize(D, C);
    }
    if (Name == ".word")
      return parseWords(D, C);
    if (Name == ".float" || Name == ".byte" || Name == ".align") {
      if (!isDataSection(Sec)) {
        requireSection(D, Section::Const);
        return;
      }
      if (Name == ".float")
        return parseFloats(C);
      if (Name == ".byte")
        return parseBytes(C);
      return parseAlign(C);
    }
    std::vector<std::string> Names = {
        ".kernel", ".const", ".data",  ".data_base", ".param", ".shared",
        ".local",  ".word",  ".float", ".byte",      ".align", ".size"};
    Diags.error(D.loc(),
                "unknown directive '" + Name + "'" + didYouMean(Name, Names));
  }

  bool requireSection(const Token &D, Section Want) {
    if (Sec == Want)
      return true;
    Diags.error(D.loc(), "'" + D.Text + "' is only allowed " +
                             (Want == Section::Kernel
                                  ? "inside a kernel (after '.kernel NAME')"
                                  : "in the .const or .data section (after "
                                    "'.const' or '.data')"));
    return false;
  }

  void expectEnd(TokenCursor &C, StringRef After) {
    if (!C.atEnd())
      Diags.error(C.peek().loc(),
                  "unexpected " + C.peek().describe() + " after " + After);
  }

  void parseKernel(TokenCursor &C) {
    const Token &N = C.peek();
    if (N.Kind != TokKind::Ident || !isCIdentifier(N.Text)) {
      Diags.error(N.loc(), "expected a kernel name (a C identifier) after "
                           ".kernel, found " +
                               N.describe());
      return;
    }
    C.next();
    auto [It, New] = KernelIndex.try_emplace(N.Text, Kernels.size());
    if (!New) {
      duplicate(N, "kernel", Kernels[It->second].Loc);
      // Keep assembling into a fresh kernel so its errors are reported too.
    }
    AsmKernel K;
    K.Info.Name = N.Text.str();
    K.Loc = N.loc();
    Kernels.push_back(std::move(K));
    Sec = Section::Kernel;
    expectEnd(C, "the kernel name");
  }

  void parseParam(TokenCursor &C) {
    const Token &N = C.peek();
    if (N.Kind != TokKind::Ident || !isCIdentifier(N.Text)) {
      Diags.error(N.loc(), "expected a parameter name (a C identifier) "
                           "after .param, found " +
                               N.describe());
      return;
    }
    C.next();
    const Token &KindTok = C.peek();
    static const std::pair<StringRef, ParamKind> Kinds[] = {
        {"ptr", ParamKind::Pointer},
        {"u32", ParamKind::U32},
        {"s32", ParamKind::S32},
        {"f32", ParamKind::F32}};
    std::optional<ParamKind> Kind;
    for (const auto &[Name, K] : Kinds)
      if (KindTok.Kind == TokKind::Ident && KindTok.Text == Name)
        Kind = K;
    if (!Kind) {
      std::string Fix =
          KindTok.Kind == TokKind::Ident
              ? didYouMean(KindTok.Text,
                           std::vector<std::string>{"ptr", "u32", "s32", "f32"})
              : std::string();
      Diags.error(KindTok.loc(), "expected a parameter kind (ptr, u32, s32 "
                                 "or f32), found " +
                                     KindTok.describe() + Fix);
      return;
    }
    C.next();
    AsmKernel &K = Kernels.back();
    auto [It, New] = K.ParamIndex.try_emplace(N.Text, K.Info.Params.size());
    if (!New) {
      Diags.error(N.loc(), "duplicate parameter '" + N.Text + "' in kernel '" +
                               K.Info.Name + "'");
      return;
    }
    KernelParam P;
    P.Name = N.Text.str();
    P.Kind = *Kind;
    P.Offset = 4 * static_cast<uint32_t>(K.Info.Params.size());
    P.Size = 4;
    K.Info.Params.push_back(std::move(P));
    expectEnd(C, "the parameter kind");
  }

  void parseSize(const Token &D, TokenCursor &C) {
    AsmKernel &K = Kernels.back();
    bool Shared = D.Text == ".shared";
    SMLoc &Seen = Shared ? K.SharedLoc : K.LocalLoc;
    if (Seen.isValid()) {
      Diags.error(D.loc(),
                  "duplicate " + D.Text + " in kernel '" + K.Info.Name + "'");
      Diags.note(Seen, "previous definition is here");
      return;
    }
    Seen = D.loc();
    OperandParser P(Diags, Syms);
    SMLoc ValueLoc = C.peek().loc();
    std::optional<int64_t> V = P.parseExpr(
        C, OperandParser::ExprUse::NumbersOnly, D.Text + " (bytes)");
    if (!V)
      return;
    if (*V < 0) {
      Diags.error(ValueLoc, D.Text + " needs a byte count of 0 or more, not " +
                                Twine(*V));
      return;
    }
    (Shared ? K.Info.SharedBytes : K.Info.LocalBytes) =
        static_cast<uint32_t>(*V);
    expectEnd(C, "the byte count");
  }

  /// Calls \p Each on every comma-separated element until the line ends.
  template <typename F> void parseList(TokenCursor &C, StringRef Dir, F Each) {
    if (C.atEnd()) {
      Diags.error(C.peek().loc(), "expected a value after " + Dir);
      return;
    }
    while (true) {
      if (!Each())
        return;
      if (C.atEnd())
        return;
      if (!C.peek().is(',')) {
        Diags.error(C.peek().loc(), "expected ',' or end of line in " + Dir +
                                        ", found " + C.peek().describe());
        return;
      }
      C.next();
    }
  }

  static bool isDataSection(Section S) {
    return S == Section::Const || S == Section::Data;
  }
  StringRef sectionName() const {
    return Sec == Section::Data ? ".data" : ".const";
  }
  /// The bytes of the current .const or .data section.
  std::vector<uint8_t> &bytes() { return Sec == Section::Data ? Data : Const; }

  /// `.data_base` (in .const): the word the loader fills with the device
  /// address of the .data section (docs/KernelImage.md); code reads it with
  /// ld.const.u32 and adds the offsets of .data labels.
  void parseDataBase(const Token &D, TokenCursor &C) {
    if (Sec != Section::Const) {
      Diags.error(D.loc(), "'.data_base' is only allowed in the .const "
                           "section (after '.const')");
      return;
    }
    if (!checkWordAligned(D, ".data_base"))
      return;
    if (DataBaseLoc.isValid()) {
      Diags.error(D.loc(), "duplicate '.data_base' (an image has one data "
                           "section, so one word holds its address)");
      Diags.note(DataBaseLoc, "previous definition is here");
      return;
    }
    DataBaseLoc = D.loc();
    DataBaseSlot = static_cast<uint32_t>(Const.size());
    appendWord(0);
    expectEnd(C, ".data_base");
  }

  /// `.size LABEL, BYTES[, NAME]` (in .const or .data, after LABEL, a
  /// label of either): the variable at LABEL, BYTES long, is a symbol the
  /// host may find by name, NAME if given (a name that cannot be a label,
  /// such as `r2`, which reads as a register) or else the label's; it
  /// becomes an entry of the image's symbol table, in directive order
  /// (docs/KernelImage.md). Labels without one stay private to the listing.
  void parseSymbolSize(const Token &D, TokenCursor &C) {
    if (!isDataSection(Sec)) {
      requireSection(D, Section::Const);
      return;
    }
    const Token &L = C.peek();
    auto It = ConstLabels.find(L.Text);
    if (L.Kind != TokKind::Ident || It == ConstLabels.end()) {
      Diags.error(L.loc(), "expected a label of the .const or .data section defined "
                           "before '.size', found " +
                               L.describe());
      return;
    }
    C.next();
    if (!C.peek().is(',')) {
      Diags.error(C.peek().loc(), "expected ',' after the label in .size, found " +
                                      C.peek().describe() + " (usage: .size LABEL, BYTES)");
      return;
    }
    C.next();
    SMLoc SizeLoc = C.peek().loc();
    OperandParser P(Diags, Syms);
    std::optional<int64_t> V = P.parseExpr(C, OperandParser::ExprUse::NumbersOnly, ".size");
    if (!V)
      return;
    if (*V < 1 || *V > std::numeric_limits<uint32_t>::max()) {
      Diags.error(SizeLoc, formatv("size {0} out of range for .size [1, 4294967295]", *V));
      return;
    }
    const Token *NameTok = &L;
    if (C.peek().is(',')) {
      C.next();
      NameTok = &C.peek();
      if (NameTok->Kind != TokKind::Ident) {
        Diags.error(NameTok->loc(), "expected the symbol's name after ',' in .size, found " +
                                        NameTok->describe());
        return;
      }
      C.next();
    }
    if (NameTok->Text.starts_with(".")) {
      Diags.error(NameTok->loc(), "symbol name '" + NameTok->Text +
                                      "' starts with '.', which marks a label private to "
                                      "the listing; a symbol's name starts with a letter or "
                                      "'_' (give one as .size LABEL, BYTES, NAME)");
      return;
    }
    for (const SizedLabel &Prev : Sized)
      if (Prev.Name == NameTok->Text) {
        Diags.error(NameTok->loc(), "duplicate symbol '" + NameTok->Text + "'");
        Diags.note(Prev.Loc, "previous definition is here");
        return;
      }
    Sized.push_back({D.loc(), L.Text.str(), NameTok->Text.str(), static_cast<uint32_t>(*V)});
    expectEnd(C, ".size");
  }

  /// Each sized label's bytes lie inside its section and, in .const, clear
  /// of the .data_base word (a host write to the variable would clobber it).
  void checkSymbols() {
    for (const SizedLabel &S : Sized) {
      const ConstLabel &L = ConstLabels.find(S.Label)->second;
      uint64_t End = uint64_t(L.Offset) + S.Size;
      const std::vector<uint8_t> &Bytes = L.InData ? Data : Const;
      if (End > Bytes.size())
        Diags.error(S.Loc, formatv("symbol '{0}' ends at byte {1}, after the end of the "
                                   "{2} section ({3} bytes)",
                                   S.Name, End, L.InData ? ".data" : ".const",
                                   Bytes.size()));
      else if (!L.InData && DataBaseLoc.isValid() && L.Offset < DataBaseSlot + 4 &&
               DataBaseSlot < End)
        Diags.error(S.Loc, formatv("symbol '{0}' [{1}, {2}) covers the '.data_base' word "
                                   "at {3}",
                                   S.Name, L.Offset, End, DataBaseSlot));
    }
  }

  /// A .data section is reachable only through the .data_base word, and
  /// that word means nothing without data: the image format requires both
  /// or neither.
  void checkDataBase() {
    if (!Data.empty() && !DataBaseLoc.isValid())
      Diags.fileError("the .data section has " + Twine(Data.size()) +
                      " bytes but the .const section has no '.data_base' "
                      "word for its address");
    if (Data.empty() && DataBaseLoc.isValid())
      Diags.error(DataBaseLoc, "'.data_base' without a .data section (or "
                               "with an empty one)");
  }

  bool checkWordAligned(const Token &At, StringRef Dir) {
    if (bytes().size() % 4 == 0)
      return true;
    Diags.error(At.loc(), Dir + " at " + sectionName().drop_front() +
                              " offset " + Twine(bytes().size()) +
                              " is not 4-byte aligned; put '.align 4' "
                              "before it");
    return false;
  }

  void appendWord(uint32_t V) {
    for (unsigned B = 0; B < 4; ++B)
      bytes().push_back(static_cast<uint8_t>(V >> (8 * B)));
  }

  std::optional<uint32_t> parseWord32(TokenCursor &C, StringRef Dir) {
    SMLoc Loc = C.peek().loc();
    OperandParser P(Diags, Syms);
    std::optional<int64_t> V =
        P.parseExpr(C, OperandParser::ExprUse::NumbersOnly, Dir);
    if (!V)
      return std::nullopt;
    if (*V < std::numeric_limits<int32_t>::min() ||
        *V > std::numeric_limits<uint32_t>::max()) {
      Diags.error(Loc, formatv("value {0} out of range for {1} (32 bits: "
                               "[-2147483648, 4294967295])",
                               *V, Dir));
      return std::nullopt;
    }
    return static_cast<uint32_t>(*V);
  }

  /// `.word` in a kernel emits raw code words (what the disassembler prints
  /// for an illegal word); in .const it emits data.
  void parseWords(const Token &D, TokenCursor &C) {
    if (Sec == Section::None) {
      requireSection(D, Section::Const);
      return;
    }
    if (isDataSection(Sec) && !checkWordAligned(D, ".word"))
      return;
    parseList(C, ".word", [&] {
      SMLoc Loc = C.peek().loc();
      std::optional<uint32_t> V = parseWord32(C, ".word");
      if (!V)
        return false;
      if (isDataSection(Sec)) {
        appendWord(*V);
        return true;
      }
      CodeItem Item;
      Item.K = CodeItem::Word;
      Item.Mnemonic = Token{TokKind::Ident, StringRef(Loc.getPointer(), 0)};
      Item.Value = *V;
      Kernels.back().Items.push_back(std::move(Item));
      return true;
    });
  }

  void parseFloats(TokenCursor &C) {
    if (!checkWordAligned(C.peek(), ".float"))
      return;
    OperandParser P(Diags, Syms);
    parseList(C, ".float", [&] {
      std::optional<uint32_t> Bits = P.parseFloat(C, ".float");
      if (Bits)
        appendWord(*Bits);
      return Bits.has_value();
    });
  }

  void parseBytes(TokenCursor &C) {
    OperandParser P(Diags, Syms);
    parseList(C, ".byte", [&] {
      SMLoc Loc = C.peek().loc();
      std::optional<int64_t> V =
          P.parseExpr(C, OperandParser::ExprUse::NumbersOnly, ".byte");
      if (!V)
        return false;
      if (*V < -128 || *V > 255) {
        Diags.error(Loc, "value " + Twine(*V) +
                             " out of range for .byte [-128, 255]");
        return false;
      }
      bytes().push_back(static_cast<uint8_t>(*V));
      return true;
    });
  }

  void parseAlign(TokenCursor &C) {
    SMLoc Loc = C.peek().loc();
    OperandParser P(Diags, Syms);
    std::optional<int64_t> V =
        P.parseExpr(C, OperandParser::ExprUse::NumbersOnly, ".align");
    if (!V)
      return;
    if (*V < 1 || *V > 4096 || !isPowerOf2_64(*V)) {
      Diags.error(Loc, ".align needs a power of two from 1 to 4096, not " +
                           Twine(*V));
      return;
    }
    while (bytes().size() % *V)
      bytes().push_back(0);
    expectEnd(C, "the alignment");
  }

  void checkKernels() {
    if (Kernels.empty() && !Diags.full()) {
      Diags.fileError("no kernels; start one with '.kernel NAME'");
      return;
    }
    for (AsmKernel &K : Kernels)
      if (K.Items.empty())
        Diags.error(K.Loc, "kernel '" + K.Info.Name + "' has no instructions");
  }

  //===--- Pass 2: layout
  //--------------------------------------------------===//

  void layout() {
    uint64_t PC = 0;
    for (AsmKernel &K : Kernels) {
      Syms.Kernel = &K;
      K.Info.EntryOffset = static_cast<uint32_t>(PC);
      for (CodeItem &Item : K.Items) {
        if (Item.K == CodeItem::Li || Item.K == CodeItem::Lif)
          parsePseudo(Item);
        Item.PC = static_cast<uint32_t>(PC);
        PC += 4 * Item.Words;
      }
      K.Info.CodeBytes = static_cast<uint32_t>(PC - K.Info.EntryOffset);
      for (auto &Entry : K.Labels) {
        CodeLabel &L = Entry.second;
        L.Address = L.ItemIndex < K.Items.size()
                        ? K.Items[L.ItemIndex].PC
                        : K.Info.EntryOffset + K.Info.CodeBytes;
      }
      if (PC > std::numeric_limits<uint32_t>::max()) {
        Diags.error(K.Loc, "code does not fit in 4 GiB");
        return;
      }
    }
    Syms.LabelsResolved = true;
  }

  /// li rd, IMM32 / lif rd, FLOAT: the value decides the size.
  void parsePseudo(CodeItem &Item) {
    TokenCursor C(Item.Operands);
    OperandParser P(Diags, Syms);
    StringRef Mn = Item.Mnemonic.Text;
    std::string Usage =
        (Mn + (Item.K == CodeItem::Li ? " rd, IMM32" : " rd, FLOAT")).str();
    Item.Valid = false;
    if (C.atEnd()) {
      Diags.error(C.peek().loc(),
                  "too few operands for " + Mn + " (usage: " + Usage + ")");
      return;
    }
    std::optional<unsigned> Rd = P.parseRegister(C, "operand rd of " + Mn);
    if (!Rd)
      return;
    if (!C.peek().is(',')) {
      Diags.error(C.peek().loc(),
                  (C.atEnd() ? "too few operands for " + Mn
                             : "expected ',', found " + C.peek().describe()) +
                      " (usage: " + Usage + ")");
      return;
    }
    C.next();
    std::optional<uint32_t> Value;
    if (Item.K == CodeItem::Li) {
      SMLoc Loc = C.peek().loc();
      std::optional<int64_t> V =
          P.parseExpr(C, OperandParser::ExprUse::Data, "operand of li");
      if (!V)
        return;
      if (*V < std::numeric_limits<int32_t>::min() ||
          *V > std::numeric_limits<uint32_t>::max()) {
        Diags.error(Loc, formatv("immediate {0} out of range [-2147483648, "
                                 "4294967295] for li",
                                 *V));
        return;
      }
      Value = static_cast<uint32_t>(*V);
    } else {
      Value = P.parseFloat(C, "operand of lif");
      if (!Value)
        return;
    }
    if (!C.atEnd()) {
      Diags.error(C.peek().loc(), "unexpected " + C.peek().describe() +
                                      " after the operands of " + Mn +
                                      " (usage: " + Usage + ")");
      return;
    }
    Item.Rd = static_cast<uint8_t>(*Rd);
    Item.Value = *Value;
    Item.Words = simt::fitsOneMovi(*Value) ? 1 : 2;
    Item.Valid = true;
  }

  //===--- Pass 3: encode
  //--------------------------------------------------===//

  void encode() {
    for (AsmKernel &K : Kernels) {
      Syms.Kernel = &K;
      for (CodeItem &Item : K.Items) {
        if (Diags.full())
          return;
        encodeItem(Item);
      }
    }
  }

  void encodeItem(const CodeItem &Item) {
    switch (Item.K) {
    case CodeItem::Word:
      Code.push_back(Item.Value);
      return;
    case CodeItem::Li:
    case CodeItem::Lif:
      return encodePseudo(Item);
    case CodeItem::Instr:
      break;
    }
    TokenCursor C(Item.Operands);
    OperandParser P(Diags, Syms);
    std::optional<DecodedInst> I =
        P.parseInstOperands(C, Item.Op, Item.Mnemonic, Item.PC);
    Code.push_back(I ? encodeOrReport(*I, Item.Mnemonic) : 0);
  }

  void encodePseudo(const CodeItem &Item) {
    if (!Item.Valid) {
      Code.insert(Code.end(), Item.Words, 0);
      return;
    }
    DecodedInst Lo;
    Lo.Op = Opcode::MOVI;
    Lo.Rd = Item.Rd;
    if (Item.Words == 1) {
      Lo.Imm = static_cast<int32_t>(Item.Value);
      Code.push_back(encodeOrReport(Lo, Item.Mnemonic));
      return;
    }
    Lo.Imm = static_cast<int32_t>(Item.Value & 0xffff);
    DecodedInst Hi;
    Hi.Op = Opcode::MOVT;
    Hi.Rd = Item.Rd;
    Hi.Imm = static_cast<int32_t>(Item.Value >> 16);
    Code.push_back(encodeOrReport(Lo, Item.Mnemonic));
    Code.push_back(encodeOrReport(Hi, Item.Mnemonic));
  }

  uint32_t encodeOrReport(const DecodedInst &I, const Token &At) {
    Expected<uint32_t> W = simt::encode(I);
    if (W)
      return *W;
    Diags.error(At.loc(), "cannot encode: " + toString(W.takeError()));
    return 0;
  }

  KernelImage buildImage() {
    KernelImage Img;
    for (AsmKernel &K : Kernels) {
      K.Info.RegistersUsed = K.MaxReg + 1;
      Img.Kernels.push_back(std::move(K.Info));
    }
    Img.Code = std::move(Code);
    Img.Const = std::move(Const);
    Img.Data = std::move(Data);
    Img.DataBaseSlot = DataBaseSlot;
    for (const SizedLabel &S : Sized) {
      const ConstLabel &L = ConstLabels.find(S.Label)->second;
      Img.Symbols.push_back(
          {S.Name, L.InData ? SymbolSection::Data : SymbolSection::Const, L.Offset, S.Size});
    }
    return Img;
  }

  const SourceMgr &SM;
  std::string FileName;
  Diagnostics Diags;
  Section Sec = Section::None;
  std::vector<AsmKernel> Kernels;
  StringMap<size_t> KernelIndex;
  StringMap<ConstLabel> ConstLabels;
  std::vector<SizedLabel> Sized; ///< in directive order: the symbol table's
  SymbolContext Syms{nullptr, &ConstLabels, false, &Kernels};
  std::vector<uint32_t> Code;
  std::vector<uint8_t> Const;
  std::vector<uint8_t> Data;
  SMLoc DataBaseLoc;         ///< of the .data_base directive, if any
  uint32_t DataBaseSlot = 0; ///< its offset in Const
};

} // namespace

Expected<KernelImage> assemble(StringRef Source, StringRef FileName) {
  SourceMgr SM;
  SM.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(Source, FileName),
                        SMLoc());
  return Assembler(SM, FileName).run();
}

Expected<DecodedInst> parseInstruction(StringRef Text, uint32_t PC) {
  StringRef Name = "<instruction>";
  SourceMgr SM;
  SM.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(Text, Name), SMLoc());
  StringRef Buffer = SM.getMemoryBuffer(SM.getMainFileID())->getBuffer();
  Diagnostics Diags(SM, Name);
  std::optional<DecodedInst> Result;
  SmallVector<Token, 16> Toks = lexLine(stripComment(Buffer));
  TokenCursor C(Toks);
  const Token &Head = C.next();
  if (Buffer.contains('\n')) {
    Diags.error(SMLoc::getFromPointer(Buffer.data() + Buffer.find('\n')),
                "expected a single instruction on one line");
  } else if (Head.Kind != TokKind::Ident) {
    Diags.error(Head.loc(),
                "expected an instruction, found " + Head.describe());
  } else if (std::optional<MnemonicInfo> MI = resolveMnemonic(Head, Diags)) {
    if (MI->K != CodeItem::Instr) {
      Diags.error(Head.loc(), "'" + Head.Text +
                                  "' is a pseudo-instruction; only real "
                                  "instructions are accepted here");
    } else {
      SymbolContext NoSymbols;
      OperandParser P(Diags, NoSymbols);
      Result = P.parseInstOperands(C, MI->Op, Head, PC);
    }
  }
  if (Diags.numErrors())
    return Diags.takeError();
  return *Result;
}

} // namespace tandem
