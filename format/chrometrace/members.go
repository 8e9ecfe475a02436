package chrometrace

import (
	"encoding/binary"

	"github.com/jsprof/jsprof/internal/jsonscan"
)

// eventKey is the name of an event's member, as parseEvent tells them.
type eventKey uint8

const (
	kOther eventKey = iota // skipped
	kPh
	kName
	kCat
	kPid
	kTid
	kID
	kTs
	kDur
	kArgs
)

// memberKeys names the members Chrome writes and DevTools saves: those
// parseEvent reads, and those it skips (kOther), which keyWords holds too.
var memberKeys = map[string]eventKey{
	"ph": kPh, "name": kName, "cat": kCat, "pid": kPid, "tid": kTid, "id": kID, "ts": kTs, "dur": kDur, "args": kArgs,
	"tdur": kOther, "tts": kOther, "s": kOther, "id2": kOther, "bp": kOther, "scope": kOther, "selfTime": kOther,
}

// keyOf returns the eventKey of the member name key (kOther for any name
// parseEvent skips).
func keyOf(key []byte) eventKey { return memberKeys[string(key)] }

// keyWord is a member name as Chrome writes it, "name": in at most eight
// bytes, as a little-endian word under a mask.
type keyWord struct {
	word, mask uint64
	n          int // its bytes
	k          eventKey
}

// keyWords holds, by a name's first byte, the memberKeys whose names fit a
// word (a longer one, such as selfTime, is left to NextKey).
var keyWords = func() (t [256][]keyWord) {
	for name, k := range memberKeys {
		lit := `"` + name + `":`
		if len(lit) > 8 {
			continue
		}
		var b [8]byte
		copy(b[:], lit)
		t[name[0]] = append(t[name[0]], keyWord{binary.LittleEndian.Uint64(b[:]), ^uint64(0) >> (64 - 8*len(lit)), len(lit), k})
	}
	return t
}()

// readEventKey reads the name of an event's member at the scanner when it
// is one of keyWords written [,]"name": (white space allowed before the ','
// and the name, which NextKey skips): its eventKey, and the scanner moved
// after the ':'. Otherwise ok is false and nothing has moved, for NextKey
// to read the name. An event is ten members or so, and comparing a word
// or two costs less than finding a name's end and switching on its bytes
// (docs/performance.md §5u).
func readEventKey(s *jsonscan.Scanner, first bool) (k eventKey, ok bool) {
	d := s.Raw(0, int64(s.Len()))
	i := jsonscan.SkipSpace(d, int(s.Offset()))
	if !first {
		if i >= len(d) || d[i] != ',' {
			return 0, false
		}
		i = jsonscan.SkipSpace(d, i+1)
	}
	if i+8 > len(d) || d[i] != '"' {
		return 0, false
	}
	x := binary.LittleEndian.Uint64(d[i:])
	for _, w := range keyWords[d[i+1]] {
		if x&w.mask == w.word {
			s.SetOffset(int64(i + w.n))
			return w.k, true
		}
	}
	return 0, false
}
