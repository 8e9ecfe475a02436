package profile

// Category is a kind of work, with a display colour and subcategories.
// Subcategories[0] is always "Other".
type Category struct {
	Name          string
	Color         string // a CSS colour name, as the Firefox Profiler uses them
	Subcategories []string
}

// The default categories, in the order of DefaultCategories.
const (
	CatIdle CategoryID = iota
	CatOther
	CatJavaScript
	CatLayout
	CatGraphics
	CatDOM
	CatGC
	CatNetwork
	CatHTMLParsing
)

// DefaultCategories returns jsprof's category list. Readers store it in every
// profile so that viewers and exporters need no table of their own.
func DefaultCategories() []Category {
	return []Category{
		{"Idle", "transparent", []string{"Other"}},
		{"Other", "grey", []string{"Other"}},
		{"JavaScript", "yellow", []string{"Other", "Interpreted", "Baseline", "Optimized", "Native", "Wasm"}},
		{"Layout", "purple", []string{"Other"}},
		{"Graphics", "green", []string{"Other"}},
		{"DOM", "blue", []string{"Other"}},
		{"GC / CC", "orange", []string{"Other"}},
		{"Network", "lightblue", []string{"Other"}},
		{"HTML Parsing", "brown", []string{"Other"}},
	}
}

// KindCategory returns the default category of a frame of kind k.
func KindCategory(k FrameKind) CategoryID {
	switch k {
	case KindIdle:
		return CatIdle
	case KindRoot, KindProgram:
		return CatOther
	case KindGC:
		return CatGC
	default:
		return CatJavaScript
	}
}
