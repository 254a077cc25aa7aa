//===- DeviceError.h - A device's fixed limits, told apart from faults -*- C++ -*-===//
//
// Most device errors mean the program is wrong (a fault) or the input is
// (a bad image, a bad launch). A CapacityError means neither: the image or
// the launch needs more of something the device has a fixed amount of (the
// rtl core's instruction memory) and the device works as built. Callers
// that run generated programs (the compiler fuzzer) count these apart from
// findings; everyone else just sees the message, which names the kernel,
// what it needs and what the device holds.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <system_error>

namespace tandem {

class CapacityError : public llvm::ErrorInfo<CapacityError> {
public:
  inline static char ID = 0;
  explicit CapacityError(std::string Message) : Message(std::move(Message)) {}
  void log(llvm::raw_ostream &OS) const override { OS << Message; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

private:
  std::string Message;
};

} // namespace tandem
