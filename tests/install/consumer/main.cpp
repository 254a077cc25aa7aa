//===- main.cpp - A user of the installed Tandem package ------------------===//
//
// Loads the installed default configuration, opens the "iss" device and
// prints its name: the smallest program that needs the headers, the
// libraries, their LLVM dependency and the data files of an installed Tandem.
//
//===----------------------------------------------------------------------===//

#include "tandem/Runtime.h"

#include "llvm/Support/raw_ostream.h"

int main() {
  llvm::Expected<tandem::AcceleratorConfig> Config =
      tandem::loadConfig(TANDEM_DEFAULT_CONFIG);
  if (!Config) {
    llvm::errs() << "tandem-consumer: " << llvm::toString(Config.takeError())
                 << "\n";
    return 1;
  }
  tandem::DeviceOptions Options;
  Options.Config = *Config;
  llvm::Expected<std::unique_ptr<tandem::Device>> Device =
      tandem::openDevice("iss", Options);
  if (!Device) {
    llvm::errs() << "tandem-consumer: " << llvm::toString(Device.takeError())
                 << "\n";
    return 1;
  }
  llvm::outs() << "device: " << (*Device)->name() << "\n";
  return 0;
}
