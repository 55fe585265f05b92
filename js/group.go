package js

import (
	"time"

	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/metrics"
)

// group runs fn with samples tagged group=::outer::name and records group_duration. An
// async fn keeps its group across its awaits (groupTracker): the group ends, and its
// duration is recorded, when the returned promise fulfils.
func (vu *VU) group(name string, fn goja.Callable) goja.Value {
	vu.RequireVUContext("group()")
	prev := vu.state.group
	vu.setGroup(prev + "::" + name)
	defer vu.setGroup(prev)
	start := time.Now()
	res, err := fn(goja.Undefined())
	if err != nil {
		panic(err)
	}
	if p, ok := res.(*goja.Object); ok {
		if _, isPromise := p.Export().(*goja.Promise); isPromise {
			return vu.groupSettled(p, start)
		}
	}
	vu.groupDone(start)
	return res
}

// groupSettled chains the group's end onto its body's promise. Chained while the group
// is in effect, the reaction runs in it; a rejection passes through unrecorded, as an
// exception from a synchronous body does.
func (vu *VU) groupSettled(p *goja.Object, start time.Time) goja.Value {
	then, ok := goja.AssertFunction(p.Get("then"))
	if !ok {
		panic(vu.rt.NewTypeError("group: the function's promise has no then()"))
	}
	chained, err := then(p, vu.rt.ToValue(func(c goja.FunctionCall) goja.Value {
		vu.groupDone(start)
		return c.Argument(0)
	}))
	if err != nil {
		panic(err)
	}
	return chained
}

func (vu *VU) groupDone(start time.Time) {
	vu.Emit(metrics.Sample{Metric: vu.runner.cfg.builtin.GroupDuration, Tags: vu.Tags(), Time: time.Now(),
		Value: float64(time.Since(start)) / float64(time.Millisecond), Metadata: vu.Metadata()})
}

// currentGroup is the group path in effect ("" at the top level and in init code).
func (vu *VU) currentGroup() string {
	if vu.state == nil {
		return ""
	}
	return vu.state.group
}

func (vu *VU) setGroup(g string) {
	if vu.state != nil && vu.state.group != g {
		vu.state.group = g
		vu.tagsChanged = true
	}
}

// inGroup binds a callback to group g: a timer callback runs in the group that armed it,
// as an awaited continuation does.
func (vu *VU) inGroup(g string, fn func() error) func() error {
	return func() error {
		prev := vu.currentGroup()
		vu.setGroup(g)
		defer vu.setGroup(prev)
		return fn()
	}
}

// groupTracker carries the group across awaits: goja grabs the current group when it
// schedules a promise reaction and resumes it when the reaction runs. Reactions never
// nest, so one saved group is enough.
type groupTracker struct {
	vu    *VU
	saved string
}

func (t *groupTracker) Grab() any { return t.vu.currentGroup() }

func (t *groupTracker) Resumed(g any) {
	t.saved = t.vu.currentGroup()
	s, _ := g.(string)
	t.vu.setGroup(s)
}

func (t *groupTracker) Exited() { t.vu.setGroup(t.saved) }
