//! TMA descriptor planning (paper section 3.4). STUB: being implemented.
