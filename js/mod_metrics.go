package js

import (
	"math"
	"time"

	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/metrics"
)

// metricsModule is `import { Counter, Gauge, Rate, Trend } from 'omnik/metrics'`.
func metricsModule(vu *VU) (*Exports, error) {
	return &Exports{Named: map[string]any{
		"Counter": vu.metricConstructor(metrics.Counter),
		"Gauge":   vu.metricConstructor(metrics.Gauge),
		"Rate":    vu.metricConstructor(metrics.Rate),
		"Trend":   vu.metricConstructor(metrics.Trend),
	}}, nil
}

func (vu *VU) metricConstructor(kind metrics.Kind) func(goja.ConstructorCall) *goja.Object {
	return func(c goja.ConstructorCall) *goja.Object {
		vu.RequireInitContext("new " + kindTitle(kind) + "()")
		name := c.Argument(0).String()
		contains := metrics.Default
		if c.Argument(1).ToBoolean() {
			contains = metrics.Time
		}
		m, err := vu.runner.cfg.registry.New(name, kind, contains)
		if err != nil {
			panic(vu.rt.NewGoError(err))
		}
		_ = c.This.Set("name", name)
		_ = c.This.Set("add", func(call goja.FunctionCall) goja.Value {
			vu.RequireVUContext(name + ".add()")
			vu.addSample(m, call.Argument(0), call.Argument(1))
			return goja.Undefined()
		})
		return nil
	}
}

func (vu *VU) addSample(m *metrics.Metric, value, tags goja.Value) {
	var v float64
	switch x := value.Export().(type) {
	case bool:
		if x {
			v = 1
		}
	case nil:
		panic(vu.rt.NewTypeError("%s.add: value is %s, want a number or a boolean", m.Name, value))
	default:
		v = value.ToFloat()
	}
	if math.IsNaN(v) {
		panic(vu.rt.NewTypeError("%s.add: value %s is not a number", m.Name, value))
	}
	vu.Emit(metrics.Sample{Metric: m, Tags: vu.Tags().Merge(vu.tagsArg(tags)), Time: time.Now(), Value: v, Metadata: vu.Metadata()})
}

func kindTitle(k metrics.Kind) string {
	s := k.String()
	return string(s[0]-'a'+'A') + s[1:]
}
