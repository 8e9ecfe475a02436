package svg

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/profile"
)

// DiffSide is one side of a differential flame graph: a thread's stacks
// and how its frames are matched with the other side's.
type DiffSide struct {
	Profile *profile.Profile
	Stacks  profile.ThreadStacks
	// Key returns a frame's identity across the two profiles (for
	// instance name, URL without the machine's prefix, line and column):
	// frames of either side with equal keys are the same function.
	Key func(f profile.FrameID) string
}

// DiffOptions controls WriteDiff. The zero value draws widths from the new
// side, unscaled, with Options' defaults.
type DiffOptions struct {
	Options
	// Reverse takes the widths from the base, so that paths that vanished
	// show (and paths that appeared do not).
	Reverse bool
	// Scale multiplies the base's times before they are compared (to
	// normalize the base to the new total); 0 means 1.
	Scale float64
}

// The diverging scale of WriteDiff, from ColorBrewer's RdBu (readable with
// the common colour-vision deficiencies): more self time is red, less is
// blue, and no change grey.
var (
	moreRGB = [3]float64{0xb2, 0x18, 0x2b}
	lessRGB = [3]float64{0x21, 0x66, 0xac}
	paleRGB = [3]float64{0xf7, 0xf7, 0xf7}
)

const sameFill = "#c8c8c8"

// WriteDiff draws a differential flame graph of two threads' stacks: the
// layout of Write over the new side's time (the base's with Reverse), each
// frame coloured by the change of its call path's self time from base to
// new on a diverging scale (DiffColor), grey where it did not change. The
// tooltips give both sides' total and self time and the change. Call paths
// of the other side that the drawn side lacks are not drawn; the
// subheading says how much time they hold.
func WriteDiff(w io.Writer, base, new DiffSide, opts DiffOptions) error {
	width, minW, err := opts.sizes()
	if err != nil {
		return err
	}
	scale := opts.Scale
	if scale == 0 {
		scale = 1
	}
	for _, s := range []*DiffSide{&base, &new} {
		if s.Stacks.Thread < 0 || int(s.Stacks.Thread) >= len(s.Profile.Threads) {
			return fmt.Errorf("svg: thread %d out of range; the profile has %d threads", s.Stacks.Thread, len(s.Profile.Threads))
		}
		if s.Stacks.Stacks == nil {
			s.Stacks.Stacks = func(func(*profile.Stack) bool) {}
		}
	}
	drawn, other := &new, &base
	if opts.Reverse {
		drawn, other = &base, &new
	}
	d := &diffTree{keys: map[string]int32{}, child: map[[2]int32]int32{}}
	if err := d.add(drawn, true); err != nil {
		return err
	}
	if err := d.add(other, false); err != nil {
		return err
	}
	// Per node: base and new self and total (base scaled).
	n := len(d.t.nodes)
	baseSelf, newSelf := make([]float64, n), make([]float64, n)
	baseTot, newTot := make([]float64, n), make([]float64, n)
	for i := range d.t.nodes {
		ds, dt := float64(d.t.nodes[i].self), float64(d.t.nodes[i].total)
		os, ot := float64(d.otherSelf[i]), float64(d.otherTotal[i])
		if opts.Reverse {
			baseSelf[i], baseTot[i], newSelf[i], newTot[i] = ds*scale, dt*scale, os, ot
		} else {
			baseSelf[i], baseTot[i], newSelf[i], newTot[i] = os*scale, ot*scale, ds, dt
		}
	}
	maxDelta := 0.0
	for i := 1; i < n; i++ {
		maxDelta = max(maxDelta, math.Abs(newSelf[i]-baseSelf[i]))
	}

	plotW := float64(width - 2*pad)
	frames := layout(&d.t, plotW, minW)
	depth := int32(0)
	for _, f := range frames {
		depth = max(depth, f.depth)
	}
	const legend = 22
	height := top + int(depth+1)*rowHeight + bottom + legend

	p := drawn.Profile
	e := &encoder{w: bufio.NewWriterSize(w, 64<<10), p: p, t: &d.t, plotW: plotW, labels: make([]string, len(d.t.funcs)),
		names: make([]string, len(d.t.funcs)), fills: make([]string, len(d.t.funcs))}
	bw := e.w
	title := opts.Title
	if title == "" {
		title = "Differential flame graph"
	}
	which := "new"
	if opts.Reverse {
		which = "base"
	}
	bt, nt := float64(d.otherTotal[0]), float64(d.t.nodes[0].total)
	if opts.Reverse {
		bt, nt = nt, bt
	}
	sub := fmt.Sprintf("widths: %s profile; base %s ms, new %s ms", which, msF(bt), msF(nt))
	if scale != 1 {
		sub += fmt.Sprintf(" (base scaled ×%.4g to compare)", scale)
	}
	if d.lost > 0 {
		other := "base"
		if opts.Reverse {
			other = "new"
		}
		sub += fmt.Sprintf("; %s ms of the %s on paths not drawn", ms(d.lost), other)
	}
	if opts.View != "" && opts.View != "all" {
		sub += "; view " + opts.View
	}
	e.head(width, height, title, sub, opts.NoScript)
	rootTotal := float64(d.t.nodes[0].total)
	for _, f := range frames {
		i := f.node
		nd := &d.t.nodes[i]
		x := pad + float64(f.off)/rootTotal*plotW
		wd := float64(nd.total) / rootTotal * plotW
		y := top + int(f.depth)*rowHeight
		label, name := "all", "all"
		if i != 0 {
			fn := nd.fn
			fr := &p.Frames[d.t.funcs[fn]]
			if e.labels[fn] == "" {
				e.labels[fn] = sanitize(frameLabel(p, fr))
				e.names[fn] = sanitize(funcName(p, fr))
			}
			label, name = e.labels[fn], e.names[fn]
		}
		delta := newSelf[i] - baseSelf[i]
		fill := DiffColor(delta, maxDelta)
		if i == 0 {
			fill = "#e0e0e0"
		}
		text := fit(name, wd)
		bw.WriteString(`<g class="f"`)
		if text != name {
			bw.WriteString(` data-name="`)
			writeEscaped(bw, name)
			bw.WriteByte('"')
		}
		bw.WriteString("><title>")
		writeEscaped(bw, label)
		var tip strings.Builder
		fmt.Fprintf(&tip, " \u2014 total: new %s ms, base %s ms; self: new %s ms, base %s ms, %s ms",
			msF(newTot[i]), msF(baseTot[i]), msF(newSelf[i]), msF(baseSelf[i]), signedMs(delta))
		switch {
		case baseTot[i] == 0 && i != 0:
			tip.WriteString(" (added)")
		case newTot[i] == 0 && i != 0:
			tip.WriteString(" (removed)")
		case baseSelf[i] > 0:
			fmt.Fprintf(&tip, " (%+.1f%%)", 100*delta/baseSelf[i])
		}
		bw.WriteString(tip.String())
		bw.WriteString("</title><rect x=\"")
		e.float(x)
		fmt.Fprintf(bw, `" y="%d" width="`, y)
		e.float(wd)
		fmt.Fprintf(bw, `" height="%d" fill="%s"/>`, boxHeight, fill)
		if text != "" {
			bw.WriteString(`<svg x="`)
			e.float(x)
			fmt.Fprintf(bw, `" y="%d" width="`, y)
			e.float(wd)
			fmt.Fprintf(bw, `" height="%d"><text x="%d" y="%s">`, boxHeight, textPad, strconv.FormatFloat(textBase, 'f', -1, 64))
			writeEscaped(bw, text)
			bw.WriteString("</text></svg>")
		}
		bw.WriteString("</g>\n")
	}
	bw.WriteString("</g>\n")
	// The legend: the scale from the largest decrease to the largest
	// increase.
	ly := height - bottom - legend + 8
	const steps, stepW = 11, 24
	for k := range steps {
		v := (float64(k) - steps/2) / (steps / 2) * maxDelta
		fill := DiffColor(v, maxDelta)
		if k == steps/2 {
			fill = sameFill
		}
		fmt.Fprintf(bw, `<rect x="%d" y="%d" width="%d" height="12" fill="%s"/>`+"\n", pad+k*stepW, ly, stepW, fill)
	}
	fmt.Fprintf(bw, `<text x="%d" y="%d">change of self time: %s ms (blue, less) … none (grey) … %s ms (red, more)</text>`+"\n",
		pad+steps*stepW+8, ly+10, signedMs(-maxDelta), signedMs(maxDelta))
	fmt.Fprintf(bw, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", pad, height-9)
	if !opts.NoScript {
		bw.WriteString("<script><![CDATA[\n")
		bw.WriteString(zoomScript)
		bw.WriteString("]]></script>\n")
	}
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

// DiffColor returns the fill for a change of self time delta (ns, new
// minus base) when the largest absolute change is maxDelta: grey for no
// change, else from pale to red (more time) or blue (less), by the square
// root of |delta|/maxDelta so that small changes stay visible.
func DiffColor(delta, maxDelta float64) string {
	if delta == 0 || maxDelta <= 0 {
		return sameFill
	}
	to := moreRGB
	if delta < 0 {
		to = lessRGB
	}
	t := math.Sqrt(min(1, math.Abs(delta)/maxDelta))
	t = 0.15 + 0.85*t
	var c [3]int
	for k := range c {
		c[k] = int(math.Round(paleRGB[k] + (to[k]-paleRGB[k])*t))
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

func msF(ns float64) string { return strconv.FormatFloat(ns/1e6, 'f', 3, 64) }

func signedMs(ns float64) string {
	s := msF(ns)
	if ns >= 0 {
		return "+" + s
	}
	return s
}

// diffTree is the drawn side's top-down tree (nodes by key path) with the
// other side's times on the same paths.
type diffTree struct {
	t                     tree
	keys                  map[string]int32 // key → function index
	child                 map[[2]int32]int32
	otherSelf, otherTotal []profile.Time
	lost                  profile.Time // other side's time on paths not drawn
}

// add aggregates one side's stacks: the drawn side builds the tree, the
// other side adds its times to the paths the tree has. As in build, a
// stack's node is found once per call path when the side's Paths gives
// them, and totals are summed at the end: a stack's weight goes on the
// total of its path's deepest node in the tree (and on its self when the
// tree has the whole path, else on lost), and from there to its ancestors'.
func (d *diffTree) add(s *DiffSide, drawn bool) error {
	p := s.Profile
	if drawn {
		d.t.nodes = []node{{fn: -1, parent: -1}}
	} else {
		d.otherSelf = make([]profile.Time, len(d.t.nodes))
		d.otherTotal = make([]profile.Time, len(d.t.nodes))
	}
	memo := make([]int32, len(p.Frames)) // FrameID → function+1 (or −1: unknown key)
	r := newPathNodes(p, s.Stacks.Paths, func(n int32, f profile.FrameID) (int32, bool) {
		fn := memo[f] - 1
		if memo[f] == 0 {
			k := s.Key(f)
			var ok bool
			if fn, ok = d.keys[k]; !ok {
				if drawn {
					fn = int32(len(d.t.funcs))
					d.t.funcs = append(d.t.funcs, f)
					d.keys[k] = fn
				} else {
					fn = -2
				}
			}
			memo[f] = fn + 1
		}
		c, ok := int32(0), false
		if fn >= 0 {
			c, ok = d.child[[2]int32{n, fn}]
		}
		if !ok {
			if !drawn {
				return 0, false
			}
			c = d.t.addChild(n, fn)
			d.child[[2]int32{n, fn}] = c
		}
		return c, true
	})
	var err error
	s.Stacks.Stacks(func(st *profile.Stack) bool {
		if st.Weight <= 0 || len(st.Frames) == 0 && !r.hasPath(st) {
			return true
		}
		n, whole, e := r.node(st)
		if e != nil {
			err = e
			return false
		}
		switch {
		case drawn:
			d.t.nodes[n].self += st.Weight
		case whole:
			d.otherSelf[n] += st.Weight
			d.otherTotal[n] += st.Weight
		default:
			d.otherTotal[n] += st.Weight
			d.lost += st.Weight
		}
		return true
	})
	if drawn {
		d.t.sumTotals()
	} else {
		for i := len(d.t.nodes) - 1; i > 0; i-- {
			d.otherTotal[d.t.nodes[i].parent] += d.otherTotal[i]
		}
	}
	return err
}
