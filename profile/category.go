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
		{"Other", "grey", []string{"Other", "Program", "Task"}},
		{"JavaScript", "yellow", []string{"Other", "Interpreted", "Baseline", "Optimized", "Native", "Wasm", "Compile", "Parse"}},
		{"Layout", "purple", []string{"Other", "Layout", "Style"}},
		{"Graphics", "green", []string{"Other", "Paint", "Raster", "Composite", "Image decode"}},
		{"DOM", "blue", []string{"Other", "Hit test"}},
		{"GC / CC", "orange", []string{"Other", "Minor GC", "Major GC", "Blink GC"}},
		{"Network", "lightblue", []string{"Other", "Request", "Response"}},
		{"HTML Parsing", "brown", []string{"Other", "HTML", "CSS"}},
	}
}

// Subcategory returns the index of the subcategory named sub of category
// c, or 0 ("Other") if there is none.
func Subcategory(cats []Category, c CategoryID, sub string) uint8 {
	if int(c) < len(cats) {
		for i, s := range cats[c].Subcategories {
			if s == sub {
				return uint8(i)
			}
		}
	}
	return 0
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
	case KindEvent:
		return CatOther
	default:
		return CatJavaScript
	}
}
