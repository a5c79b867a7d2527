// The axe dialect: the one definition of its attributes, types and ops.
//
// Loaded at run time by axe-opt/axe-translate (axe-dialect crate, include_str!)
// and by upstream tools with `mlir-opt-22 --irdl-file=dialect/axe.irdl.mlir`.
// Both print the same text for the same input.
//
// IRDL limits in MLIR 22 (see docs/toolchain): ops use the generic syntax only,
// no traits, no terminators, no verifier hooks. Semantic checks (layout text
// parses, shapes are admitted, scopes nest) live in Rust, in the axe-dialect
// verifier. One constraint value per operand: two operands constrained by one
// SSA value must have equal types.
//
// Extend by adding `irdl.attribute`, `irdl.type` and `irdl.operation` entries
// below; keep one entry per concept with a comment saying what it means.

irdl.dialect @axe {
  // #axe.layout<"S[...] + R[...] + n@axis">: a layout in the text notation of
  // the axe-layout crate. The single parameter is the layout text.
  irdl.attribute @layout {
    %text = irdl.base "#builtin.string"
    irdl.parameters(text: %text)
  }

  // "axe.annotate"(%v) {layout = #axe.layout<"...">} : (T) -> ()
  //
  // Attaches a layout to any SSA value, for documentation and debugging. It
  // has no semantics: `axe-opt --axe-strip-annotations` erases every one.
  irdl.operation @annotate {
    %any = irdl.any
    %layout = irdl.base @axe::@layout
    irdl.operands(value: %any)
    irdl.attributes { "layout" = %layout }
  }
}
