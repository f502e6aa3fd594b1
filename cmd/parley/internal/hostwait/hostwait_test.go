package hostwait

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/checkpoint"
)

var point = checkpoint.Point{Kind: checkpoint.KindRound, Round: 1, Members: []string{"a"}, Choices: []checkpoint.Action{checkpoint.Continue, checkpoint.Drop, checkpoint.Stop}}

func TestGiveAnswersTheWaitingPointOnly(t *testing.T) {
	t.Parallel()
	h := New()
	if err := h.Give(checkpoint.Answer{Action: checkpoint.Stop}); !errors.Is(err, ErrNotWaiting) {
		t.Fatalf("Give with nothing waiting: %v", err)
	}
	got := make(chan checkpoint.Answer, 1)
	go func() {
		a, err := h.Answer(context.Background(), point)
		if err != nil {
			t.Error(err)
		}
		got <- a
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.GiveWhenAsked(ctx, checkpoint.Answer{Action: checkpoint.Drop, Member: "b"}); err == nil || errors.Is(err, ErrNotWaiting) {
		t.Fatalf("an answer the point does not take: %v", err)
	}
	if err := h.GiveWhenAsked(ctx, checkpoint.Answer{Action: checkpoint.Stop}); err != nil {
		t.Fatal(err)
	}
	if a := <-got; a.Action != checkpoint.Stop {
		t.Fatalf("answered %+v", a)
	}
	if _, ok := h.Waiting(); ok {
		t.Fatal("still waiting after the answer")
	}
}

func TestPresetAndCancel(t *testing.T) {
	t.Parallel()
	h := New()
	if err := h.Preset(point, checkpoint.Answer{Action: checkpoint.Note}); err == nil {
		t.Fatal("a preset the point does not take was kept")
	}
	if err := h.Preset(point, checkpoint.Answer{Action: checkpoint.Continue}); err != nil {
		t.Fatal(err)
	}
	if a, err := h.Answer(context.Background(), point); err != nil || a.Action != checkpoint.Continue {
		t.Fatalf("preset: %+v, %v", a, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.Answer(ctx, point); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if _, ok := h.Waiting(); ok {
		t.Fatal("a cancelled question still waits")
	}
}
