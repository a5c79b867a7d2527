func.func private @first()
// CUT
func.func private @second()
