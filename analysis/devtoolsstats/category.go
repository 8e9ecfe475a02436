package devtoolsstats

// The DevTools category ids (Styles.EventCategory), in the order of
// Styles.getCategoryStyles.
const (
	Loading     = "loading"
	Experience  = "experience"
	Messaging   = "messaging"
	Scripting   = "scripting"
	Rendering   = "rendering"
	Painting    = "painting"
	GPU         = "gpu"
	Async       = "async"
	Other       = "other" // shown as "System"
	Idle        = "idle"
	Layout      = "layout"
	Rasterizing = "rasterizing"
	Drawing     = "drawing"
)

// Categories lists every DevTools category id in the order of
// Styles.getCategoryStyles, the order the Summary lists categories of equal
// time in. No event style uses the last three.
var Categories = []string{Loading, Experience, Messaging, Scripting, Rendering, Painting, GPU, Async, Other, Idle, Layout, Rasterizing, Drawing}

// Category returns the category the Summary counts an entry of a thread in:
// the category of the event style of its name (Styles.getEventStyle), or
// "other" when its name has no style. Every ProfileCall (isProfileCall) is
// "scripting", whatever its function: the Summary looks up the event name,
// which is "ProfileCall" for all of them, so (idle) and (program) calls count
// as scripting there.
//
// cat, the trace event's category list, does not change the Summary's
// category. It is a parameter because the flame chart's colouring
// (TimelineUIUtils.eventStyle) does look at it: blink.console and
// blink.user_timing events are scripting there. Hidden styles still have a
// category and are counted.
func Category(name, cat string, isProfileCall bool) string {
	if isProfileCall {
		return Scripting
	}
	if c, ok := eventCategory[name]; ok {
		return c
	}
	return Other
}

// eventCategory is the category of every event style of the pinned engine's
// Styles.ts (@paulirish/trace_engine 0.0.65, maybeInitSylesMap; 111 names,
// docs/devtools-engine.md §9), by trace event name. The comments mark the
// styles that are hidden in the flame chart.
var eventCategory = map[string]string{
	"RunTask":                     Other,
	"ProfileCall":                 Scripting,
	"JSSample":                    Scripting,
	"Program":                     Other,
	"CpuProfiler::StartProfiling": Other,
	"Animation":                   Rendering,
	"EventDispatch":               Scripting,
	"RequestMainThreadFrame":      Rendering, // hidden
	"BeginFrame":                  Rendering, // hidden
	"BeginMainThreadFrame":        Rendering, // hidden
	"DrawFrame":                   Rendering, // hidden
	"HitTest":                     Rendering,
	"ScheduleStyleRecalculation":  Rendering,
	"UpdateLayoutTree":            Rendering,
	"InvalidateLayout":            Rendering, // hidden
	"Layerize":                    Rendering,
	"Layout":                      Rendering,
	"PaintSetup":                  Painting,
	"PaintImage":                  Painting, // hidden
	"UpdateLayer":                 Painting, // hidden
	"UpdateLayerTree":             Rendering,
	"Paint":                       Painting,
	"PrePaint":                    Rendering,
	"RasterTask":                  Painting,
	"ScrollLayer":                 Rendering,
	"Commit":                      Painting,
	"CompositeLayers":             Painting,
	"ComputeIntersections":        Rendering,
	"ParseHTML":                   Loading,
	"ParseAuthorStyleSheet":       Loading,
	"TimerInstall":                Scripting,
	"TimerRemove":                 Scripting,
	"TimerFire":                   Scripting,
	"XHRReadyStateChange":         Scripting,
	"XHRLoad":                     Scripting,
	"v8.compile":                  Scripting,
	"v8.produceCache":             Scripting,
	"V8.CompileCode":              Scripting,
	"V8.OptimizeCode":             Scripting,
	"EvaluateScript":              Scripting,
	"V8.CompileModule":            Scripting,
	"v8.produceModuleCache":       Scripting,
	"v8.evaluateModule":           Scripting,
	"v8.parseOnBackground":        Other,
	"v8.parseOnBackgroundWaiting": Idle,
	"v8.parseOnBackgroundParsing": Scripting,
	"v8.deserializeOnBackground":  Scripting,
	"V8.FinalizeDeserialization":  Other,

	"v8.wasm.streamFromResponseCallback": Scripting,
	"v8.wasm.compiledModule":             Scripting,
	"v8.wasm.cachedModule":               Scripting,
	"v8.wasm.moduleCacheHit":             Scripting,
	"v8.wasm.moduleCacheInvalid":         Scripting,

	"FrameStartedLoading":               Loading,   // hidden
	"MarkLoad":                          Scripting, // hidden
	"MarkDOMContent":                    Scripting, // hidden
	"firstPaint":                        Painting,  // hidden
	"firstContentfulPaint":              Rendering, // hidden
	"largestContentfulPaint::Candidate": Rendering, // hidden
	"largestContentfulPaint::CandidateForSoftNavigation": Rendering, // hidden

	"TimeStamp":                         Scripting,
	"ConsoleTime":                       Scripting,
	"UserTiming":                        Scripting,
	"ResourceWillSendRequest":           Loading,
	"ResourceSendRequest":               Loading,
	"ResourceReceiveResponse":           Loading,
	"ResourceFinish":                    Loading,
	"ResourceReceivedData":              Loading,
	"RunMicrotasks":                     Scripting,
	"FunctionCall":                      Scripting,
	"GCEvent":                           Scripting,
	"MajorGC":                           Scripting,
	"MinorGC":                           Scripting,
	"CppGC.IncrementalSweep":            Scripting,
	"RequestAnimationFrame":             Scripting,
	"CancelAnimationFrame":              Scripting,
	"FireAnimationFrame":                Scripting,
	"RequestIdleCallback":               Scripting,
	"CancelIdleCallback":                Scripting,
	"FireIdleCallback":                  Scripting,
	"WebSocketCreate":                   Scripting,
	"WebSocketSendHandshakeRequest":     Scripting,
	"WebSocketReceiveHandshakeResponse": Scripting,
	"WebSocketDestroy":                  Scripting,
	"WebSocketSend":                     Scripting,
	"WebSocketReceive":                  Scripting,
	"EmbedderCallback":                  Scripting,
	"Decode Image":                      Painting,
	"GPUTask":                           GPU,
	"BlinkGC.AtomicPhase":               Scripting,
	"DoEncrypt":                         Scripting,
	"DoEncryptReply":                    Scripting,
	"DoDecrypt":                         Scripting,
	"DoDecryptReply":                    Scripting,
	"DoDigest":                          Scripting,
	"DoDigestReply":                     Scripting,
	"DoSign":                            Scripting,
	"DoSignReply":                       Scripting,
	"DoVerify":                          Scripting,
	"DoVerifyReply":                     Scripting,
	"AsyncTask":                         Async,
	"LayoutShift":                       Experience, // hidden
	"SyntheticLayoutShift":              Experience,
	"SyntheticLayoutShiftCluster":       Experience,
	"EventTiming":                       Experience,
	"HandlePostMessage":                 Messaging,
	"SchedulePostMessage":               Messaging,
	"SchedulePostTaskCallback":          Scripting,
	"RunPostTaskCallback":               Scripting,
	"AbortPostTaskCallback":             Scripting,
	"V8Console::runTask":                Scripting,
}
