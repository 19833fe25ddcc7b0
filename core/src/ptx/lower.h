// Between the grammar (parse.cpp) and the interpreter: decoding an opcode as
// it is read (decode.cpp) and lowering the whole module once it is read
// (lower.cpp). Both happen once, at load; the interpreter reads no text.
#pragma once
#include <string>
#include <string_view>

#include "module_impl.h"

namespace wl::ptx::detail {

// The instruction's operation, types, space and qualifiers from its opcode
// ("setp.lt.u32"); Op::Unsupported for what the interpreter does not implement.
void decode_opcode(std::string_view opcode, Instr& in);
// After the last token: kernel info, constant slots, hot forms, builtins.
void lower_module(Module::Impl& m);

std::string demangle(const std::string& name);  // the name itself where it is not a mangled one
// "void f<1u>(int)" -> "f<1u>(int)": template functions' demangled names start with the return type.
std::string without_return_type(const std::string& demangled);

}  // namespace wl::ptx::detail
