package profile

// Builder helps readers fill a Profile: it interns strings and deduplicates
// frames. The zero value is not ready; use NewBuilder.
type Builder struct {
	P       *Profile
	strings map[string]StringID
	frames  map[frameKey]FrameID
	// Frames NewFrame added, not in frames yet.
	pending []FrameID
}

// frameKey is a Frame without its derived fields (kind and category).
type frameKey struct {
	Name, URL, ScriptID StringID
	Line, Column        int32
	CodeType            StringID
	Kind                FrameKind
	Category            CategoryID
}

// NewBuilder returns a Builder for a new, empty profile of the given format.
func NewBuilder(format string) *Builder {
	p := &Profile{Format: format, Strings: []string{""}, Categories: DefaultCategories()}
	return &Builder{P: p, strings: map[string]StringID{"": 0}, frames: map[frameKey]FrameID{}}
}

// NewBuilderFor returns a Builder that adds to an existing profile.
func NewBuilderFor(p *Profile) *Builder {
	b := &Builder{P: p, strings: make(map[string]StringID, len(p.Strings)), frames: make(map[frameKey]FrameID, len(p.Frames))}
	for i, s := range p.Strings {
		if _, ok := b.strings[s]; !ok {
			b.strings[s] = StringID(i)
		}
	}
	for i, f := range p.Frames {
		b.frames[frameKey{f.Name, f.URL, f.ScriptID, f.Line, f.Column, f.CodeType, f.Kind, f.Category}] = FrameID(i)
		// Readers pass frames unclassified (KindJS, category 0).
		raw := frameKey{f.Name, f.URL, f.ScriptID, f.Line, f.Column, f.CodeType, KindJS, 0}
		if _, ok := b.frames[raw]; !ok {
			b.frames[raw] = FrameID(i)
		}
	}
	return b
}

// Intern returns the id of s, adding it if needed.
func (b *Builder) Intern(s string) StringID {
	if id, ok := b.strings[s]; ok {
		return id
	}
	id := StringID(len(b.P.Strings))
	b.P.Strings = append(b.P.Strings, s)
	b.strings[s] = id
	return id
}

// InternBytes is Intern for a byte slice; it allocates only for new strings.
func (b *Builder) InternBytes(s []byte) StringID {
	if id, ok := b.strings[string(s)]; ok {
		return id
	}
	return b.Intern(string(s))
}

// Lookup returns the id of s if it has been interned.
func (b *Builder) Lookup(s []byte) (StringID, bool) {
	id, ok := b.strings[string(s)]
	return id, ok
}

// Frame returns the id of f, adding it if needed. It fills in f.Kind from the
// name when f.Kind is KindJS and the frame is a meta or native frame, and
// f.Category from the kind when it is zero.
func (b *Builder) Frame(f Frame) FrameID {
	if len(b.pending) > 0 {
		b.indexFrames()
	}
	key := frameKey{f.Name, f.URL, f.ScriptID, f.Line, f.Column, f.CodeType, f.Kind, f.Category}
	if id, ok := b.frames[key]; ok {
		return id
	}
	id := b.add(f)
	b.frames[key] = id
	return id
}

// NewFrame adds f, which the caller knows the builder does not hold: a
// frame of a table of distinct frames, added to a builder that had no
// frames (a .cpuprofile's node table names 40 k frames on the many-nodes
// shape; deduplicating them again in Frame's map cost a tenth of a
// reading's serial part). f comes unclassified, as readers pass it to
// Frame; the frames NewFrame adds are indexed for Frame when it is next
// called.
func (b *Builder) NewFrame(f Frame) FrameID {
	if f.Kind != KindJS || f.Category != 0 {
		return b.Frame(f)
	}
	id := b.add(f)
	b.pending = append(b.pending, id)
	return id
}

func (b *Builder) add(f Frame) FrameID {
	if f.Kind == KindJS {
		f.Kind = b.classify(f)
	}
	if f.Category == 0 {
		f.Category = KindCategory(f.Kind)
	}
	id := FrameID(len(b.P.Frames))
	b.P.Frames = append(b.P.Frames, f)
	return id
}

// indexFrames puts the frames NewFrame added in the map, under the key
// Frame would have looked them up by (unclassified).
func (b *Builder) indexFrames() {
	for _, id := range b.pending {
		f := &b.P.Frames[id]
		b.frames[frameKey{f.Name, f.URL, f.ScriptID, f.Line, f.Column, f.CodeType, KindJS, 0}] = id
	}
	b.pending = nil
}

func (b *Builder) classify(f Frame) FrameKind {
	// A frame with a URL is JS whatever its name: tested first, the name's
	// bytes are not read (two cache misses a frame in a table of 40 k
	// frames, a fifth of the many-nodes shape's nodes made in preorder).
	if f.URL != 0 {
		return KindJS
	}
	switch b.P.Strings[f.Name] {
	case "(root)", "(host)":
		return KindRoot
	case "(program)":
		return KindProgram
	case "(idle)":
		return KindIdle
	case "(garbage collector)", "(gc)":
		return KindGC
	}
	if s := b.P.Strings[f.ScriptID]; s == "0" || s == "" {
		return KindNative
	}
	return KindJS
}
