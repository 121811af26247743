package engine

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Run executes cfg.Plan. It writes node events through cfg.Recorder (the
// caller writes run.started and run.finished around it) and returns how
// the run ended; the error return is only for a configuration the engine
// cannot start with (no recorder, an unsupported node type, a broken graph).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Plan == nil || cfg.Recorder == nil {
		return nil, errors.New("engine: a plan and a recorder are required")
	}
	if err := CheckSupported(cfg.Plan); err != nil {
		return nil, err
	}
	if err := checkAgents(cfg); err != nil {
		return nil, err
	}
	ix, err := indexGraph(cfg.Plan.Graph())
	if err != nil {
		return nil, err
	}
	par := cfg.Parallel
	if par <= 0 {
		par = cfg.Plan.Settings.Parallel
	}
	if par <= 0 {
		par = 1
	}
	inline := cfg.InlineLimit
	if inline <= 0 {
		inline = 4096
	}
	r := &runner{
		cfg:       cfg,
		sem:       make(chan struct{}, par),
		prior:     cfg.Prior,
		maxSteps:  int64(cfg.Plan.Settings.MaxGraphSteps),
		inline:    inline,
		loopIters: map[string]int{},
		summary:   map[string]*NodeSummary{},
		sumPos:    map[string][]int{},
		calls:     map[string]int{},
	}
	r.cache.Store(cfg.Plan, ix)
	if cfg.Inputs == nil {
		cfg.Inputs = map[string]any{}
	}
	if t := cfg.Plan.Settings.RunTimeoutS; t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(t*float64(time.Second)))
		defer cancel()
	}
	g := r.newGraphRun(cfg.Plan, ix, "", newScope(&r.mu, cfg.Inputs), recorderSink{cfg.Recorder}, nil)
	runErr := g.run(ctx)
	res := &Result{Steps: int(r.steps.Load()), Nodes: r.summaries(), Tier: r.runTier()}
	var we *waitError
	var rj *rejectedError
	switch {
	case runErr == nil:
		res.Status = StatusSucceeded
		res.Outputs = g.outputs()
	case errors.As(runErr, &we):
		res.Status = StatusWaiting
		res.Waiting = we.nodes
		res.Err = runErr
	case errors.As(runErr, &rj):
		res.Status = StatusCancelled
		res.Err = runErr
	case errors.Is(runErr, context.Canceled):
		res.Status = StatusCancelled
		res.Err = fmt.Errorf("the run was interrupted (Ctrl-C or a termination signal); nodes that had not finished will run again on resume")
	default:
		res.Status = StatusFailed
		res.Err = runErr
	}
	return res, nil
}
