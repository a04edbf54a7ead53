package mcp

import "testing"

// BenchmarkLoadSchemas: parsing, inlining and compiling the contract's
// schemas, the part of start-up the server adds to the process.
func BenchmarkLoadSchemas(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := loadSchemas(); err != nil {
			b.Fatal(err)
		}
	}
}
