// What the verifier refuses of axe.copy_staged (issue 25): registers to global memory through shared memory, one
// dtype on all three, the same shape at both ends, and a buffer whose shape tiles the source's.
// RUN: axe-opt %s --split-input-file --verify-diagnostics

func.func @buffer_does_not_tile(%r: !axe.tensor<128x256xf16, reg>, %g: !axe.tensor<128x256xf16, global>, %b: !axe.tensor<128x96xf16, shared>) {
  // expected-error @+1 {{copy_staged buffer shape [128,96] must tile the source's [128,256] (each dimension dividing it)}}
  axe.copy_staged cta %r to %g through %b : !axe.tensor<128x256xf16, reg> to !axe.tensor<128x256xf16, global> through !axe.tensor<128x96xf16, shared>
  return
}

// -----

func.func @buffer_of_another_rank(%r: !axe.tensor<128x256xf16, reg>, %g: !axe.tensor<128x256xf16, global>, %b: !axe.tensor<8192xf16, shared>) {
  // expected-error @+1 {{copy_staged buffer shape [8192] must tile the source's [128,256] (each dimension dividing it)}}
  axe.copy_staged cta %r to %g through %b : !axe.tensor<128x256xf16, reg> to !axe.tensor<128x256xf16, global> through !axe.tensor<8192xf16, shared>
  return
}

// -----

func.func @dtypes(%r: !axe.tensor<128x256xf32, reg>, %g: !axe.tensor<128x256xf16, global>, %b: !axe.tensor<128x64xf16, shared>) {
  // expected-error @+1 {{copy_staged source, dest and buffer dtypes must agree, got f32, f16 and f16}}
  axe.copy_staged cta %r to %g through %b : !axe.tensor<128x256xf32, reg> to !axe.tensor<128x256xf16, global> through !axe.tensor<128x64xf16, shared>
  return
}

// -----

func.func @shapes(%r: !axe.tensor<128x256xf16, reg>, %g: !axe.tensor<128x128xf16, global>, %b: !axe.tensor<128x64xf16, shared>) {
  // expected-error @+1 {{copy_staged}}
  axe.copy_staged cta %r to %g through %b : !axe.tensor<128x256xf16, reg> to !axe.tensor<128x128xf16, global> through !axe.tensor<128x64xf16, shared>
  return
}

// -----

func.func @memories(%r: !axe.tensor<128x256xf16, shared>, %g: !axe.tensor<128x256xf16, global>, %b: !axe.tensor<128x64xf16, shared>) {
  // expected-error @+1 {{copy_staged stores registers to global memory through shared memory, got shared to global through shared}}
  axe.copy_staged cta %r to %g through %b : !axe.tensor<128x256xf16, shared> to !axe.tensor<128x256xf16, global> through !axe.tensor<128x64xf16, shared>
  return
}
