// SPDX-License-Identifier: Apache-2.0
// SPIR-V validation (SPIRV-Tools) and translation to SPIR 1.2 bitcode (SPIRV-LLVM-Translator
// 15 on LLVM 15).
#include "translate.hpp"

#include <LLVMSPIRVLib/LLVMSPIRVLib.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <spirv-tools/libspirv.hpp>

#include <cstring>
#include <sstream>

namespace ze_cpu {

namespace {

constexpr uint32_t kSpirvMagic = 0x07230203;

// SPIRV-Tools' verdict on the module; empty when it is valid.
std::string validate(const unsigned char* spirv, size_t size) {
  uint32_t version = 0;
  std::memcpy(&version, spirv + 4, sizeof version);
  const uint32_t major = (version >> 16) & 0xff, minor = (version >> 8) & 0xff;
  if (major != 1 || minor > 2)
    return "SPIR-V " + std::to_string(major) + "." + std::to_string(minor) +
           " is newer than the 1.2 this device takes";
  spvtools::SpirvTools tools(SPV_ENV_UNIVERSAL_1_2);
  std::string messages;
  tools.SetMessageConsumer(
      [&](spv_message_level_t, const char*, const spv_position_t& position, const char* message) {
        messages += "word " + std::to_string(position.index) + ": " + message + "\n";
      });
  std::vector<uint32_t> words(size / 4);
  std::memcpy(words.data(), spirv, words.size() * 4);
  if (!tools.Validate(words)) return messages.empty() ? std::string("invalid SPIR-V") : messages;
  return "";
}

// Whether the module declares `capability` (OpCapability, opcode 17).
bool declares_capability(const unsigned char* spirv, size_t size, uint32_t capability) {
  std::vector<uint32_t> words(size / 4);
  std::memcpy(words.data(), spirv, words.size() * 4);
  for (size_t at = 5; at < words.size();) {
    const uint32_t count = words[at] >> 16, opcode = words[at] & 0xffff;
    if (count == 0) break;
    if (opcode == 17 && count == 2 && at + 1 < words.size() && words[at + 1] == capability) return true;
    at += count;
  }
  return false;
}

KernelInfo describe(const llvm::Function& f, const llvm::DataLayout& layout) {
  KernelInfo info;
  info.name = f.getName().str();
  for (const llvm::Argument& arg : f.args()) {
    llvm::Type* type = arg.getType();
    if (arg.hasByValAttr()) {
      info.argument_types.push_back(KernelArgument::Type::value);
      info.argument_sizes.push_back(static_cast<uint32_t>(layout.getTypeAllocSize(arg.getParamByValType())));
    } else if (type->isPointerTy() && type->getPointerAddressSpace() == 3) {  // __local
      info.argument_types.push_back(KernelArgument::Type::local);
      info.argument_sizes.push_back(0);
    } else if (type->isPointerTy()) {  // __global, __constant
      info.argument_types.push_back(KernelArgument::Type::global);
      info.argument_sizes.push_back(static_cast<uint32_t>(sizeof(void*)));
    } else {
      info.argument_types.push_back(KernelArgument::Type::value);
      info.argument_sizes.push_back(static_cast<uint32_t>(layout.getTypeAllocSize(type)));
    }
  }
  if (const llvm::MDNode* reqd = f.getMetadata("reqd_work_group_size"); reqd && reqd->getNumOperands() == 3) {
    for (unsigned d = 0; d < 3; ++d)
      if (auto* c = llvm::mdconst::dyn_extract<llvm::ConstantInt>(reqd->getOperand(d)))
        info.required_group_size[d] = static_cast<uint32_t>(c->getZExtValue());
  }
  return info;
}

}  // namespace

Translation translate_spirv(const unsigned char* spirv, size_t size,
                            const std::map<uint32_t, const void*>& spec_constants, bool fp64) {
  Translation t;
  uint32_t magic = 0;
  if (size < 20 || size % 4 != 0) {
    t.log = "not a SPIR-V module: " + std::to_string(size) +
            " bytes (a module is a whole number of 4-byte words, 5 or more)";
    return t;
  }
  std::memcpy(&magic, spirv, sizeof magic);
  if (magic != kSpirvMagic) {
    t.log = "not a SPIR-V module: no SPIR-V magic number in the first word";
    return t;
  }
  if (std::string invalid = validate(spirv, size); !invalid.empty()) {
    t.log = "SPIR-V validation failed:\n" + invalid;
    return t;
  }
  constexpr uint32_t kFloat64 = 10;
  if (!fp64 && declares_capability(spirv, size, kFloat64)) {
    t.log = "the module uses 64-bit floats (OpCapability Float64), which this device does not have";
    return t;
  }

  const std::string input(reinterpret_cast<const char*>(spirv), size);
  SPIRV::TranslatorOpts options;
  options.setDesiredBIsRepresentation(SPIRV::BIsRepresentation::OpenCL12);
  options.setGenKernelArgNameMDEnabled(true);
  if (!spec_constants.empty()) {
    std::istringstream probe(input);
    std::vector<llvm::SpecConstInfoTy> known;
    if (!llvm::getSpecConstInfo(probe, known)) {
      t.log = "cannot read the module's specialization constants";
      return t;
    }
    for (const auto& [id, pointer] : spec_constants) {
      uint32_t width = 0;
      for (const auto& [known_id, known_size] : known)
        if (known_id == id) width = known_size;
      if (width == 0) {
        t.log = "the module has no specialization constant with SpecId " + std::to_string(id);
        return t;
      }
      uint64_t value = 0;
      std::memcpy(&value, pointer, std::min<size_t>(width, sizeof value));
      options.setSpecConst(id, value);
    }
  }

  llvm::LLVMContext context;
  // Typed pointers, as the llvm-spirv 15 tool uses: the reader asserts on some constructs with
  // LLVM 15's default opaque pointers, and PoCL 3.1 reads typed SPIR bitcode.
  context.setOpaquePointers(false);
  llvm::Module* module = nullptr;
  std::string error;
  std::istringstream stream(input);
  if (!llvm::readSpirv(context, options, stream, module, error) || module == nullptr) {
    t.log = "SPIR-V translation failed: " + error;
    delete module;
    return t;
  }
  std::unique_ptr<llvm::Module> owned(module);
  for (const llvm::Function& f : *owned)
    if (f.getCallingConv() == llvm::CallingConv::SPIR_KERNEL && !f.isDeclaration())
      t.kernels.push_back(describe(f, owned->getDataLayout()));
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream out(buffer);
  llvm::WriteBitcodeToFile(*owned, out);
  t.bitcode.assign(buffer.begin(), buffer.end());
  t.ok = true;
  return t;
}

}  // namespace ze_cpu
