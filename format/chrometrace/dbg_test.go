package chrometrace

import (
	"os"
	"testing"
)

func BenchmarkDbgParse(b *testing.B) {
	data, _ := os.ReadFile(os.Getenv("DBG_FILE"))
	splitEventsBytes = 8 << 20
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseBytes(data, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
