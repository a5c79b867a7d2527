//===- AxeDialect.cpp - the axe dialect's hand-written syntax --------------===//
//
// What ODS cannot generate: the layout notation written unquoted inside `#axe.layout<...>` and
// `!axe.tensor<...>`, the tensor type's memref-like body, barrier counts and indices, and an op's execution
// scope written as a bare keyword after the op name. Everything else comes from axe/Axe.td. Semantic checks
// live in Rust (dialect/src/verify.rs); this file only reads and writes text.
//
//===----------------------------------------------------------------------===//

#include "axe/AxeDialect.h"

#ifdef AXE_CAPI
#include "mlir/CAPI/Registration.h"
#endif
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <string>

using namespace mlir;
using namespace mlir::axe;

#include "axe/AxeEnums.cpp.inc"

#include "axe/AxeDialect.cpp.inc"

//===----------------------------------------------------------------------===//
// The layout notation as MLIR tokens
//===----------------------------------------------------------------------===//

namespace {
/// How a run of layout tokens ends: at the `>` of the enclosing type or attribute, or at a `)` that closes a
/// parenthesis opened before the layout.
enum class LayoutEnd { Greater, RParen };
} // namespace

/// Reads the Axe layout notation token by token up to (and including) its terminator, and writes it back with
/// the notation printer's spacing: tokens joined without spaces, except ` + ` and ` - ` between terms and ` o `
/// after a swizzle. So `S[(128, 64) : (64, 1)]+3@m` reads as `S[(128,64):(64,1)] + 3@m`, and printed text reads back
/// unchanged. The notation itself is checked by the Rust verifier, which knows the grammar.
static ParseResult parseLayoutTokens(AsmParser &parser, LayoutEnd end, std::string &text) {
  SMLoc start = parser.getCurrentLocation();
  int depth = 0;
  auto word = [&](StringRef token) {
    if (token == "o")
      text += " o ";
    else
      text += token.str();
  };
  while (true) {
    if (succeeded(parser.parseOptionalLParen())) {
      ++depth;
      text += "(";
    } else if (succeeded(parser.parseOptionalLSquare())) {
      ++depth;
      text += "[";
    } else if (succeeded(parser.parseOptionalRParen())) {
      if (depth == 0 && end == LayoutEnd::RParen)
        break;
      if (depth == 0)
        return parser.emitError(parser.getCurrentLocation(), "unbalanced ')' in layout");
      --depth;
      text += ")";
    } else if (succeeded(parser.parseOptionalRSquare())) {
      if (depth == 0)
        return parser.emitError(parser.getCurrentLocation(), "unbalanced ']' in layout");
      --depth;
      text += "]";
    } else if (succeeded(parser.parseOptionalGreater())) {
      if (depth == 0 && end == LayoutEnd::Greater)
        break;
      return parser.emitError(parser.getCurrentLocation(), "unbalanced brackets before '>' in layout");
    } else if (succeeded(parser.parseOptionalComma())) {
      text += ",";
    } else if (succeeded(parser.parseOptionalColon())) {
      text += ":";
    } else if (succeeded(parser.parseOptionalPlus())) {
      text += " + ";
    } else if (succeeded(parser.parseOptionalMinus())) {
      // Between terms a binary minus (` - `); after an opening bracket, a comma or a colon a sign.
      bool sign = text.empty() || StringRef("([,: ").contains(text.back());
      text += sign ? "-" : " - ";
    } else if (StringRef keyword; succeeded(parser.parseOptionalKeyword(&keyword))) {
      word(keyword);
    } else if (StringAttr symbol; succeeded(parser.parseOptionalSymbolName(symbol))) {
      // An axis is an identifier (`@laneid`); a quoted symbol (`@"..."`) could carry any byte.
      StringRef axis = symbol.getValue();
      if (axis.empty() || !(llvm::isAlpha(axis.front()) || axis.front() == '_') ||
          !llvm::all_of(axis, [](char c) { return llvm::isAlnum(c) || c == '_'; }))
        return parser.emitError(parser.getCurrentLocation(), "layout axis names are identifiers, got @\"")
               << axis << "\"";
      text += "@" + axis.str();
    } else {
      APInt value;
      OptionalParseResult integer = parser.parseOptionalInteger(value);
      if (!integer.has_value())
        return parser.emitError(parser.getCurrentLocation(),
                                "expected a token of the layout notation (S[...], R[...], n@axis, "
                                "Swizzle(M,B,S) o ...)");
      if (failed(*integer))
        return failure();
      text += llvm::toString(value, 10, /*Signed=*/true);
    }
  }
  if (text.empty())
    return parser.emitError(start, "expected a layout");
  return success();
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

#define GET_ATTRDEF_CLASSES
#include "axe/AxeAttrs.cpp.inc"

Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  std::string text;
  if (parser.parseLess() || parseLayoutTokens(parser, LayoutEnd::Greater, text))
    return {};
  return LayoutAttr::get(parser.getContext(), text);
}

void LayoutAttr::print(AsmPrinter &printer) const { printer << "<" << getText() << ">"; }

/// `warpid[0:4]`: an axis and a half-open range.
static ParseResult parseThreadRange(AsmParser &parser, std::string &axis, int64_t &begin, int64_t &end) {
  StringRef name;
  if (parser.parseKeyword(&name) || parser.parseLSquare() || parser.parseInteger(begin) ||
      parser.parseColon() || parser.parseInteger(end) || parser.parseRSquare())
    return failure();
  axis = name.str();
  return success();
}

Attribute ThreadsAttr::parse(AsmParser &parser, Type) {
  std::string axis;
  int64_t begin = 0, end = 0;
  if (parser.parseLess() || parseThreadRange(parser, axis, begin, end) || parser.parseGreater())
    return {};
  return ThreadsAttr::get(parser.getContext(), axis, begin, end);
}

/// Prints `warpid[0:4]` (what parseThreadRange reads).
static void printThreadRange(AsmPrinter &printer, ThreadsAttr threads) {
  printer << threads.getAxis() << "[" << threads.getBegin() << ":" << threads.getEnd() << "]";
}

void ThreadsAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printThreadRange(printer, *this);
  printer << ">";
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

#define GET_TYPEDEF_CLASSES
#include "axe/AxeTypes.cpp.inc"

/// `<128x?xf16, global[, layout]>`.
Type axe::TensorType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  StringRef memoryName;
  SMLoc memoryLoc;
  if (parser.parseLess())
    return {};
  if (SMLoc loc = parser.getCurrentLocation(); succeeded(parser.parseOptionalMinus())) {
    parser.emitError(loc, "tensor extents are positive integers or ?");
    return {};
  }
  if (parser.parseDimensionList(shape, /*allowDynamic=*/true, /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseComma())
    return {};
  memoryLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&memoryName))
    return {};
  std::optional<MemorySpace> memory = symbolizeMemorySpace(memoryName);
  if (!memory) {
    parser.emitError(memoryLoc, "unknown memory '") << memoryName << "': expected global, shared, tmem, reg, hbm, sbuf or psum";
    return {};
  }
  std::string layout;
  if (failed(parser.parseOptionalGreater())) {
    if (parser.parseComma() || parseLayoutTokens(parser, LayoutEnd::Greater, layout))
      return {};
  }
  return axe::TensorType::get(parser.getContext(), shape, elementType, *memory, layout);
}

void axe::TensorType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t dim : getShape()) {
    if (ShapedType::isDynamic(dim))
      printer << "?";
    else
      printer << dim;
    printer << "x";
  }
  printer << getElementType() << ", " << stringifyMemorySpace(getMemory());
  if (!getLayout().empty())
    printer << ", " << getLayout();
  printer << ">";
}

/// `mbarrier` (one barrier) or `mbarrier<N>`, N >= 1.
Type MbarrierType::parse(AsmParser &parser) {
  int64_t count = 1;
  if (succeeded(parser.parseOptionalLess())) {
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseInteger(count) || parser.parseGreater())
      return {};
    if (count < 1) {
      parser.emitError(loc, "an mbarrier array holds at least one barrier, not ") << count;
      return {};
    }
  }
  return MbarrierType::get(parser.getContext(), count);
}

void MbarrierType::print(AsmPrinter &printer) const {
  if (getCount() != 1)
    printer << "<" << getCount() << ">";
}

//===----------------------------------------------------------------------===//
// Custom directives of the op formats
//===----------------------------------------------------------------------===//

/// `cta` or `cta(warpid[0:4])`: the execution scope, and the optional thread subset of it.
static ParseResult parseScope(OpAsmParser &parser, ExecScopeAttr &scope, ThreadsAttr &threads) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef name;
  if (parser.parseKeyword(&name))
    return failure();
  std::optional<ExecScope> value = symbolizeExecScope(name);
  if (!value)
    return parser.emitError(loc, "unknown execution scope '")
           << name << "': expected kernel, cluster, cta, warpgroup, warp or thread";
  scope = ExecScopeAttr::get(parser.getContext(), *value);
  if (succeeded(parser.parseOptionalLParen())) {
    std::string axis;
    int64_t begin = 0, end = 0;
    if (parseThreadRange(parser, axis, begin, end) || parser.parseRParen())
      return failure();
    threads = ThreadsAttr::get(parser.getContext(), axis, begin, end);
  }
  return success();
}

static void printScope(OpAsmPrinter &printer, Operation *, ExecScopeAttr scope, ThreadsAttr threads) {
  printer << stringifyExecScope(scope.getValue());
  if (threads) {
    printer << "(";
    printThreadRange(printer, threads);
    printer << ")";
  }
}

/// `[%i]` after a barrier array, or nothing for a single barrier.
static ParseResult parseBarrierIndex(OpAsmParser &parser, std::optional<OpAsmParser::UnresolvedOperand> &index) {
  if (failed(parser.parseOptionalLSquare()))
    return success();
  index.emplace();
  return failure(parser.parseOperand(*index) || parser.parseRSquare());
}

static void printBarrierIndex(OpAsmPrinter &printer, Operation *, Value index) {
  if (index)
    printer << "[" << index << "]";
}

/// `warpid[8:9]`: the warps (or `wgid[0:2]`, warpgroups) of an `axe.role`.
static ParseResult parseRoleThreads(OpAsmParser &parser, ThreadsAttr &threads) {
  std::string axis;
  int64_t begin = 0, end = 0;
  if (parseThreadRange(parser, axis, begin, end))
    return failure();
  threads = ThreadsAttr::get(parser.getContext(), axis, begin, end);
  return success();
}

static void printRoleThreads(OpAsmPrinter &printer, Operation *, ThreadsAttr threads) {
  printThreadRange(printer, threads);
}

/// `(S[...])`: a layout in parentheses; `(#alias)` or `(#axe.layout<...>)` read too.
static ParseResult parseLayoutText(OpAsmParser &parser, LayoutAttr &layout) {
  if (parser.parseLParen())
    return failure();
  // An attribute (an alias or the full form) starts with '#'; the notation never does (it may start with an
  // integer, which parseOptionalAttribute would take).
  if (*parser.getCurrentLocation().getPointer() == '#') {
    Attribute attribute;
    if (parser.parseAttribute(attribute) || parser.parseRParen())
      return failure();
    layout = llvm::dyn_cast<LayoutAttr>(attribute);
    if (!layout)
      return parser.emitError(parser.getCurrentLocation(), "expected a layout, got ") << attribute;
    return success();
  }
  std::string text;
  if (parseLayoutTokens(parser, LayoutEnd::RParen, text))
    return failure();
  layout = LayoutAttr::get(parser.getContext(), text);
  return success();
}

static void printLayoutText(OpAsmPrinter &printer, Operation *, LayoutAttr layout) {
  printer << "(" << layout.getText() << ")";
}

//===----------------------------------------------------------------------===//
// Ops and the dialect
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "axe/AxeOps.cpp.inc"

//===----------------------------------------------------------------------===//
// axe.tile_loop: block arguments named in the op's text, as scf.for does
//===----------------------------------------------------------------------===//

/// `(%m0, %n0) in (%m, %n) : i32 tile [128, 256] group 8 iter_args(%a = %x) -> (i32) attributes {...} { ... }`.
ParseResult TileLoopOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  SmallVector<OpAsmParser::Argument, 4> arguments;
  SmallVector<OpAsmParser::UnresolvedOperand, 2> extents;
  Type extentType;
  if (parser.parseArgumentList(arguments, OpAsmParser::Delimiter::Paren) || parser.parseKeyword("in") ||
      parser.parseOperandList(extents, OpAsmParser::Delimiter::Paren) || parser.parseColonType(extentType))
    return failure();
  if (arguments.size() != 2 || extents.size() != 2)
    return parser.emitError(parser.getNameLoc(), "expected two tile coordinates and two extents");
  for (auto &argument : arguments)
    argument.type = builder.getIndexType();
  SmallVector<int64_t, 2> tile;
  auto parseSize = [&]() -> ParseResult { return parser.parseInteger(tile.emplace_back()); };
  if (parser.parseKeyword("tile") || parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parseSize))
    return failure();
  auto &properties = result.getOrAddProperties<TileLoopOp::Properties>();
  properties.tile = builder.getDenseI64ArrayAttr(tile);
  if (succeeded(parser.parseOptionalKeyword("group"))) {
    int64_t group = 0;
    if (parser.parseInteger(group))
      return failure();
    properties.group = builder.getI64IntegerAttr(group);
  }
  SmallVector<OpAsmParser::UnresolvedOperand, 4> inits;
  if (succeeded(parser.parseOptionalKeyword("iter_args"))) {
    SmallVector<OpAsmParser::Argument, 4> carried;
    if (parser.parseAssignmentList(carried, inits) || parser.parseArrowTypeList(result.types))
      return failure();
    if (carried.size() != result.types.size())
      return parser.emitError(parser.getNameLoc(), "expected one type per iter_args value");
    for (auto [argument, type] : llvm::zip(carried, result.types)) {
      argument.type = type;
      arguments.push_back(argument);
    }
  }
  Region *body = result.addRegion();
  if (parser.resolveOperands(extents, extentType, result.operands) ||
      parser.resolveOperands(inits, result.types, parser.getNameLoc(), result.operands) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes) || parser.parseRegion(*body, arguments))
    return failure();
  TileLoopOp::ensureTerminator(*body, builder, result.location);
  return success();
}

void TileLoopOp::print(OpAsmPrinter &printer) {
  Block &body = getBody().front();
  printer << " (" << body.getArgument(0) << ", " << body.getArgument(1) << ") in (" << getRows() << ", "
          << getCols() << ") : " << getRows().getType() << " tile [";
  llvm::interleaveComma(getTile(), printer);
  printer << "]";
  if (getGroup() != 1)
    printer << " group " << getGroup();
  if (!getInits().empty()) {
    printer << " iter_args(";
    llvm::interleaveComma(llvm::zip(body.getArguments().drop_front(2), getInits()), printer,
                          [&](auto pair) { printer << std::get<0>(pair) << " = " << std::get<1>(pair); });
    printer << ") -> (" << getResultTypes() << ")";
  }
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {"tile", "group"});
  printer << " ";
  printer.printRegion(getBody(), /*printEntryBlockArgs=*/false, /*printBlockTerminators=*/!getInits().empty());
}

void AxeDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "axe/AxeAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "axe/AxeTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "axe/AxeOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// C API: the dialect handle melior registers and loads
//===----------------------------------------------------------------------===//

// Built into the Rust tools only (dialect/build.rs defines AXE_CAPI); C++ users register the dialect class.
#ifdef AXE_CAPI
extern "C" {
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Axe, axe);
}

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Axe, axe, mlir::axe::AxeDialect)
#endif
