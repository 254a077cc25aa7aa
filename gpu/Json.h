//===- Json.h - A small JSON reader and writer for the GPU runner ---------===//
//
// The runner reads the manifest `tandem suite-export` writes and writes its
// results, on a machine with no LLVM (and no JSON library we may rely on).
// Enough of JSON for that: objects, arrays, strings (with the common
// escapes), numbers as double, true/false/null. Errors name the byte offset.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tandem::gpu {

struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object } K = Kind::Null;
  bool B = false;
  double N = 0;
  std::string S;
  std::vector<Json> A;
  std::vector<std::pair<std::string, Json>> O; // in file order

  /// The member \p Key; a missing member is an error naming it.
  const Json &operator[](const std::string &Key) const {
    for (const auto &[Name, V] : O)
      if (Name == Key)
        return V;
    throw std::runtime_error("manifest: missing member '" + Key + "'");
  }
  bool has(const std::string &Key) const {
    for (const auto &KV : O)
      if (KV.first == Key)
        return true;
    return false;
  }
  long long integer() const { return static_cast<long long>(std::llround(N)); }
};

class JsonParser {
public:
  explicit JsonParser(const std::string &Text) : T(Text) {}

  Json parse() {
    Json V = value();
    space();
    if (P != T.size())
      fail("text after the value");
    return V;
  }

private:
  [[noreturn]] void fail(const std::string &Why) {
    throw std::runtime_error("manifest: offset " + std::to_string(P) + ": " + Why);
  }
  void space() {
    while (P < T.size() && (T[P] == ' ' || T[P] == '\n' || T[P] == '\t' || T[P] == '\r'))
      ++P;
  }
  bool take(char C) {
    space();
    if (P < T.size() && T[P] == C) {
      ++P;
      return true;
    }
    return false;
  }
  void expect(char C) {
    if (!take(C))
      fail(std::string("expected '") + C + "'");
  }
  std::string string() {
    expect('"');
    std::string S;
    while (P < T.size() && T[P] != '"') {
      char C = T[P++];
      if (C != '\\') {
        S += C;
        continue;
      }
      if (P >= T.size())
        fail("unfinished escape");
      char E = T[P++];
      switch (E) {
      case 'n': S += '\n'; break;
      case 't': S += '\t'; break;
      case 'r': S += '\r'; break;
      case 'b': S += '\b'; break;
      case 'f': S += '\f'; break;
      case 'u': {
        if (P + 4 > T.size())
          fail("bad \\u escape");
        unsigned Code = std::stoul(T.substr(P, 4), nullptr, 16);
        P += 4;
        S += Code < 0x80 ? char(Code) : '?'; // the manifest is ASCII
        break;
      }
      default: S += E;
      }
    }
    if (P >= T.size())
      fail("unfinished string");
    ++P;
    return S;
  }
  Json value() {
    space();
    if (P >= T.size())
      fail("unexpected end");
    Json V;
    char C = T[P];
    if (C == '{') {
      ++P;
      V.K = Json::Kind::Object;
      if (take('}'))
        return V;
      do {
        space();
        std::string Key = string();
        expect(':');
        V.O.emplace_back(std::move(Key), value());
      } while (take(','));
      expect('}');
    } else if (C == '[') {
      ++P;
      V.K = Json::Kind::Array;
      if (take(']'))
        return V;
      do
        V.A.push_back(value());
      while (take(','));
      expect(']');
    } else if (C == '"') {
      V.K = Json::Kind::String;
      V.S = string();
    } else if (T.compare(P, 4, "true") == 0 || T.compare(P, 5, "false") == 0) {
      V.K = Json::Kind::Bool;
      V.B = T[P] == 't';
      P += V.B ? 4 : 5;
    } else if (T.compare(P, 4, "null") == 0) {
      P += 4;
    } else {
      size_t End = 0;
      try {
        V.N = std::stod(T.substr(P, 64), &End);
      } catch (...) {
        fail("expected a value");
      }
      V.K = Json::Kind::Number;
      P += End;
    }
    return V;
  }

  const std::string &T;
  size_t P = 0;
};

/// A JSON string literal for \p S.
inline std::string quote(const std::string &S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\', Out += C;
    else if (C == '\n')
      Out += "\\n";
    else if (static_cast<unsigned char>(C) < 0x20)
      Out += ' ';
    else
      Out += C;
  }
  return Out + "\"";
}

/// A JSON number (null for NaN/inf, which JSON cannot hold).
inline std::string number(double V) {
  if (!std::isfinite(V))
    return "null";
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.6g", V);
  return Buf;
}

} // namespace tandem::gpu
