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

// -----

// stages must divide the buffer's first dimension (the stages lie along it).
func.func @stages_do_not_divide(%r: !axe.tensor<128x256xf16, reg>, %g: !axe.tensor<128x256xf16, global>, %b: !axe.tensor<256x64xf16, shared>) {
  // expected-error @+1 {{copy_staged stages 3 must be at least 1 and divide the buffer's first dimension, got buffer [256,64]}}
  axe.copy_staged cta %r to %g through %b stages 3 : !axe.tensor<128x256xf16, reg> to !axe.tensor<128x256xf16, global> through !axe.tensor<256x64xf16, shared>
  return
}

// -----

// A piece is a stage of the buffer: two stages of [128,64] in a [256,64] buffer tile [128,256]; one stage of the
// whole [256,64] buffer would not.
func.func @a_staged_buffer_without_its_stages(%r: !axe.tensor<128x256xf16, reg>, %g: !axe.tensor<128x256xf16, global>, %b: !axe.tensor<256x64xf16, shared>) {
  // expected-error @+1 {{copy_staged buffer shape [256,64] must tile the source's [128,256] (each dimension dividing it)}}
  axe.copy_staged cta %r to %g through %b : !axe.tensor<128x256xf16, reg> to !axe.tensor<128x256xf16, global> through !axe.tensor<256x64xf16, shared>
  return
}

// -----

// A store may leave its newest bulk groups reading; a load (completing on a barrier) has no such count.
func.func @reads_in_flight_on_a_load(%g: !axe.tensor<128x64xf16, global>, %s: !axe.tensor<128x64xf16, shared>, %bar: !axe.mbarrier) {
  // expected-error @+1 {{copy_async reads_in_flight 1: a store shared -> global may leave 0 to 63 stores reading}}
  axe.copy_async cta %g to %s, %bar {reads_in_flight = 1 : i64} : !axe.tensor<128x64xf16, global> to !axe.tensor<128x64xf16, shared>, !axe.mbarrier
  return
}
