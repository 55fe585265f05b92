package main

import (
	"fmt"
	"path/filepath"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/modules/omni/dataset"
)

// datasetSpec is the JSON the script hands to omnik/data's dataset().
type datasetSpec struct {
	Name                    string          `json:"name"`
	Path                    string          `json:"path,omitempty"`
	NumPrompts              int             `json:"numPrompts"`
	RandomInputLen          int             `json:"randomInputLen"`
	RandomOutputLen         int             `json:"randomOutputLen"`
	RandomRangeRatio        float64         `json:"randomRangeRatio"`
	RandomPrefixLen         int             `json:"randomPrefixLen,omitempty"`
	SharegptOutputLen       int             `json:"sharegptOutputLen,omitempty"`
	CustomOutputLenOverride int             `json:"customOutputLenOverride,omitempty"`
	DisableShuffle          bool            `json:"disableShuffle,omitempty"`
	MM                      *dataset.MMSpec `json:"mm,omitempty"`
	Seed                    int64           `json:"seed"`
	// Calibrate sizes random prompts with the server's /tokenize, when it has one.
	Calibrate bool `json:"calibrate,omitempty"`
}

// dataset is the dataset() spec of the flags; --input-len and --output-len stand for the
// dataset-specific lengths, as in vllm.
func (f *benchFlags) dataset() (datasetSpec, error) {
	in, out, sharegptOut, customOut := f.randomInputLen, f.randomOutputLen, f.sharegptOutputLen, f.customOutputLen
	if f.fs.Changed("input-len") {
		in = f.inputLen
	}
	if f.fs.Changed("output-len") {
		out, sharegptOut, customOut = f.outputLen, f.outputLen, f.outputLen
	}
	path := f.datasetPath
	if path != "" {
		var err error
		if path, err = filepath.Abs(path); err != nil {
			return datasetSpec{}, err
		}
	}
	ds := datasetSpec{Calibrate: f.datasetName == dataset.Random || f.datasetName == dataset.RandomMM,
		Name: f.datasetName, Path: path, NumPrompts: f.numPrompts, RandomInputLen: in, RandomOutputLen: out,
		RandomRangeRatio: f.randomRangeRatio, RandomPrefixLen: f.randomPrefixLen, SharegptOutputLen: sharegptOut,
		CustomOutputLenOverride: max(customOut, 0), DisableShuffle: f.disableShuffle, Seed: f.seed}
	if f.datasetName == dataset.RandomMM {
		mm, err := f.mm.spec()
		if err != nil {
			return ds, err
		}
		ds.MM = mm
	}
	return ds, nil
}

// spec is the random-mm part of the dataset spec; nil leaves vLLM's defaults.
func (m mmFlags) spec() (*dataset.MMSpec, error) {
	if m == (mmFlags{baseItems: 1}) {
		return nil, nil
	}
	spec := &dataset.MMSpec{BaseItems: m.baseItems, ItemsRangeRatio: m.itemsRangeRatio}
	var err error
	if m.limits != "" {
		if spec.Limits, err = dataset.ParseLimits(m.limits); err != nil {
			return nil, engine.Invalid(err)
		}
	}
	if m.buckets != "" {
		if spec.Buckets, err = dataset.ParseBuckets(m.buckets); err != nil {
			return nil, engine.Invalid(err)
		}
	}
	return spec, nil
}

// checkSamples refuses, before anything is sent, a dataset the endpoint cannot take:
// every image edit needs an input image (the server answers 422 without one).
func (p *benchPlan) checkSamples(samples []*dataset.Sample) error {
	if p.backend != backendImageEdits {
		return nil
	}
	for i, s := range samples {
		if len(s.Images) == 0 {
			return fmt.Errorf("--endpoint /v1/images/edits edits input images, and request %d of the %s dataset has none: "+
				"use --dataset-name random-mm (images by default) or a custom dataset whose lines have images", i+1, p.params.Dataset.Name)
		}
	}
	return nil
}
