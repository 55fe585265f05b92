package omni

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/dop251/goja"
	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/modules/omni/dataset"
)

// datasets loads each dataset a run asks for once, shared by every VU.
type datasets struct {
	mu     sync.Mutex
	bySpec map[string]*loadedDataset
}

type loadedDataset struct {
	once  sync.Once
	ds    *dataset.Dataset
	order []int
	err   error
}

// get loads spec once per run; calibrate, when set, sizes random prompts in the
// server's tokens first. The key is the spec as asked, so every VU asking the same gets
// the same dataset without calibrating again.
func (d *datasets) get(spec dataset.Spec, calibrate func() *dataset.Calibration) (*loadedDataset, error) {
	key, _ := json.Marshal(struct {
		Spec      dataset.Spec
		Calibrate bool
	}{spec, calibrate != nil})
	d.mu.Lock()
	l, ok := d.bySpec[string(key)]
	if !ok {
		l = &loadedDataset{}
		d.bySpec[string(key)] = l
	}
	d.mu.Unlock()
	l.once.Do(func() {
		if calibrate != nil {
			spec.Calibration = calibrate()
		}
		if l.ds, l.err = dataset.Load(spec); l.err == nil {
			n := spec.NumPrompts
			if n <= 0 {
				n = l.ds.Len()
			}
			if spec.DisableShuffle {
				l.order = l.ds.InOrder(n)
			} else {
				l.order = l.ds.Sample(n, spec.Seed)
			}
		}
	})
	return l, l.err
}

// DataExtension adds dataset(spec) to omnik/data: in init code it loads a dataset (once
// per run for the same spec) and returns a read-only array of its samples in the run
// order for the seed. Keys: name, path, numPrompts, randomInputLen, randomOutputLen,
// randomRangeRatio, randomPrefixLen, sharegptOutputLen, customOutputLen,
// customOutputLenOverride, disableShuffle, mm, seed, calibrate (docs/bench.md).
func (m *Module) DataExtension() js.Module {
	return func(vu *js.VU) (*js.Exports, error) {
		return &js.Exports{Named: map[string]any{"dataset": func(raw map[string]any) goja.Value {
			vu.RequireInitContext("dataset()")
			rt := vu.Runtime()
			// The runtime that only reads options runs before the target is configured:
			// calibrating there would ask the wrong server, so it gets uncalibrated prompts
			// that no iteration ever sends.
			l, err := m.loadDataset(raw, !vu.ReadingOptions())
			if err != nil {
				panic(rt.NewGoError(err))
			}
			return rt.NewDynamicArray(&sampleArray{rt: rt, l: l})
		}}}, nil
	}
}

// LoadDataset loads a dataset into the run's cache before any script runs, so a
// malformed file is reported as itself (file, line, reason) rather than as an exception
// in init code; scripts asking for the same spec get the loaded one. It returns the
// samples in the run's order, shared: read them, never modify them.
func (m *Module) LoadDataset(raw map[string]any) ([]*dataset.Sample, error) {
	l, err := m.loadDataset(raw, true)
	if err != nil {
		return nil, err
	}
	samples := make([]*dataset.Sample, len(l.order))
	for i, j := range l.order {
		samples[i] = l.ds.At(j)
	}
	return samples, nil
}

// loadDataset reads a dataset() spec; `calibrate: true` asks the configured server's
// /tokenize to size random prompts in its tokens (a server without one leaves the
// one-token-per-word estimate, with a warning).
func (m *Module) loadDataset(raw map[string]any, mayCalibrate bool) (*loadedDataset, error) {
	raw = maps.Clone(raw)
	calibrate, _ := raw["calibrate"].(bool)
	calibrate = calibrate && mayCalibrate
	delete(raw, "calibrate")
	spec, err := datasetSpec(raw)
	if err != nil {
		return nil, err
	}
	var cal func() *dataset.Calibration
	if calibrate {
		cal = m.calibration
	}
	return m.datasets.get(spec, cal)
}

func (m *Module) calibration() *dataset.Calibration {
	m.mu.Lock()
	cfg := m.cfg
	m.mu.Unlock()
	cal, err := Calibrate(context.Background(), cfg)
	if err != nil {
		m.warn("dataset(): prompt lengths are estimated at one token per word: " + err.Error())
		return nil
	}
	return cal
}

func datasetSpec(raw map[string]any) (dataset.Spec, error) {
	b, err := json.Marshal(raw)
	if err != nil {
		return dataset.Spec{}, err
	}
	var s dataset.Spec
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("dataset(): %w (keys: name, path, numPrompts, randomInputLen, randomOutputLen, randomRangeRatio, randomPrefixLen, sharegptOutputLen, customOutputLen, customOutputLenOverride, disableShuffle, mm, seed, calibrate)", err)
	}
	return s, nil
}

// sampleArray is the read-only JS view of a dataset in run order; each access builds a
// small object over the shared sample, so nothing is copied per VU.
type sampleArray struct {
	rt *goja.Runtime
	l  *loadedDataset
}

func (a *sampleArray) Len() int { return len(a.l.order) }

func (a *sampleArray) Get(i int) goja.Value {
	if i < 0 || i >= len(a.l.order) {
		return goja.Undefined()
	}
	s := a.l.ds.At(a.l.order[i])
	images := make([]any, len(s.Images))
	files := make([]any, len(s.Images))
	for j, im := range s.Images {
		images[j] = im.DataURL()
		files[j] = mediaFile(a.rt, im)
	}
	audio := make([]any, len(s.Audio))
	for j, au := range s.Audio {
		audio[j] = base64Part(au.DataURL())
	}
	obj := map[string]any{
		"prompt": s.Prompt, "outputTokens": s.OutputTokens, "promptLen": s.PromptLen,
		"images": images, "imageFiles": files, "audio": audio,
	}
	if len(s.Messages) > 0 {
		var msgs any
		_ = json.Unmarshal(s.Messages, &msgs)
		obj["messages"] = msgs
	}
	return a.rt.ToValue(obj)
}

func (a *sampleArray) Set(int, goja.Value) bool { return false }
func (a *sampleArray) SetLen(int) bool          { return false }

// mediaFile is an ArrayBuffer over the shared bytes (for multipart), or the URL.
func mediaFile(rt *goja.Runtime, m *dataset.Media) any {
	if m.Data == nil {
		return m.URL
	}
	return rt.NewArrayBuffer(m.Data)
}

// base64Part is the payload of a data URL (input_audio.data wants bare base64).
func base64Part(url string) string {
	if _, b64, ok := strings.Cut(url, ";base64,"); ok && strings.HasPrefix(url, "data:") {
		return b64
	}
	return url
}
