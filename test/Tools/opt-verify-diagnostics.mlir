// axe-opt --verify-diagnostics accepts every mlir-opt annotation form: same
// line, @+N, @-N, @below, @above, notes, and -re regexes. Exit code 0 means
// every expected diagnostic was produced and nothing else was.
// RUN: axe-opt %s -split-input-file -verify-diagnostics

func.func @same_line_and_relative(%a: f32) {
  // The layout notation is written unquoted; a string is no token of it.
  // expected-error@+1 {{expected a token of the layout notation}}
  axe.annotate %a layout("S[8:1]") : f32
  return
}

// -----

func.func @parse_error_same_line() {
  %x = arith.addi // expected-error {{expected SSA operand}}
}

// -----

// expected-error@below {{Dialect `foo' not found for custom op 'foo.bar'}}
// expected-note@below {{Available dialects}}
foo.bar

// -----

func.func @above() {
  %c = arith.constant 1 : i32
  %x = "arith.addf"(%c, %c) : (i32, i32) -> i32
  // expected-error@above {{'arith.addf' op operand #0 must be floating-point-like}}
  return
}

// -----

// expected-error-re@+2 {{'func.return' op has 0 operands, but enclosing function (@{{[a-z_]+}}) returns 1}}
func.func @regex_names_the_function() -> i32 {
  return
}

// -----

func.func @minus(%a: i32) {
  return %a : i32
}
// expected-error@-2 {{'func.return' op has 1 operands, but enclosing function (@minus) returns 0}}

// -----

// A chunk without diagnostics verifies too.
func.func @clean() {
  return
}
