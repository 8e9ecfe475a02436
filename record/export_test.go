package record

// SyncBuffer lets the external tests use syncBuffer (internal_test.go): a
// buffer a process's output is copied into while the test reads it.
type SyncBuffer = syncBuffer
