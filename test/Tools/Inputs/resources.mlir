func.func private @first() -> tensor<2xi32> attributes {value = dense_resource<blob1> : tensor<2xi32>}
func.func private @second()

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000100000002000000"
    }
  }
#-}
