package record

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// WriteTrace writes the recording as one Chrome trace (JSON object form)
// that holds every thread: per thread a thread_name event and a CpuProfile
// event whose args.data.cpuProfile is the thread's profile verbatim, as
// DevTools' own recordings carried profiles before ProfileChunk. The pid
// is the Node process's, the tid 1 for the main thread and 1 + threadId
// for a worker.
func (rec *Recording) WriteTrace(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	pid := rec.PID
	if pid == 0 {
		pid = 1
	}
	name := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	fmt.Fprintf(bw, "{\"traceEvents\":[\n")
	fmt.Fprintf(bw, `{"name":"process_name","ph":"M","cat":"__metadata","pid":%d,"tid":1,"ts":0,"args":{"name":%s}}`, pid, name("node "+rec.Target))
	for i, th := range rec.Threads {
		var times struct {
			StartTime float64 `json:"startTime"`
			EndTime   float64 `json:"endTime"`
		}
		if err := json.Unmarshal(th.Profile, &times); err != nil {
			return fmt.Errorf("thread %s: the profile is not JSON: %w", th.Name, err)
		}
		tid := th.ThreadID + 1
		fmt.Fprintf(bw, ",\n"+`{"name":"thread_name","ph":"M","cat":"__metadata","pid":%d,"tid":%d,"ts":0,"args":{"name":%s}}`, pid, tid, name(th.Name))
		fmt.Fprintf(bw, ",\n"+`{"name":"CpuProfile","ph":"X","cat":"disabled-by-default-devtools.timeline","pid":%d,"tid":%d,"id":"0x%x","ts":%s,"dur":%s,"args":{"data":{"cpuProfile":`,
			pid, tid, i+1, strconv.FormatFloat(times.StartTime, 'f', -1, 64), strconv.FormatFloat(times.EndTime-times.StartTime, 'f', -1, 64))
		bw.Write(th.Profile)
		bw.WriteString("}}}")
	}
	bw.WriteString("\n],\"metadata\":{\"source\":\"jsprof record\"}}\n")
	return bw.Flush()
}
