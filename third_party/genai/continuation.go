// Copyright 2026 Google LLC
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//      http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package genai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"time"
	"weak"
)

var initialPromptTokenCounts sync.Map // map[weak.Pointer[GenerateContentResponseUsageMetadata]]int32

func setInitialPromptTokenCount(u *GenerateContentResponseUsageMetadata, count int32) {
	if u == nil || count == 0 {
		return
	}
	wp := weak.Make(u)
	initialPromptTokenCounts.Store(wp, count)
	runtime.AddCleanup(u, func(key weak.Pointer[GenerateContentResponseUsageMetadata]) {
		initialPromptTokenCounts.Delete(key)
	}, wp)
}

func getInitialPromptTokenCount(u *GenerateContentResponseUsageMetadata) int32 {
	if u == nil {
		return 0
	}
	if v, ok := initialPromptTokenCounts.Load(weak.Make(u)); ok {
		return v.(int32)
	}
	return u.PromptTokenCount
}

func shouldEnableAutomaticContinuation(config *GenerateContentConfig) bool {
	if config == nil || config.AutomaticContinuation == nil {
		return true
	}
	return *config.AutomaticContinuation
}

// Per the continuation protocol, when a continuation_token is present the
// backend only sets finish_reason to empty/UNSPECIFIED (intermediate
// checkpoint chunk) or CONTINUATION (stream end).
func isResumableFinishReason(finishReason FinishReason) bool {
	return finishReason == "" || finishReason == FinishReasonUnspecified || finishReason == FinishReasonContinuation
}

func canResumeStream(enableContinuation bool, continuationToken []byte, finishReason FinishReason, hasPromptFeedback bool) bool {
	if hasPromptFeedback {
		return false
	}
	return enableContinuation && len(continuationToken) > 0 && isResumableFinishReason(finishReason)
}

// Maximum number of consecutive streaming reconnects that do not receive a new
// checkpoint continuation token before the latest error since the stream last
// made progress is surfaced to the caller (or, if there was none, the stream
// ends normally).
const maxStreamReconnectsWithoutProgress = 3

func clearIntermediateFinishReason(chunk *GenerateContentResponse, enableContinuation bool, continuationToken []byte) *GenerateContentResponse {
	if chunk == nil || len(chunk.Candidates) == 0 || chunk.Candidates[0] == nil {
		return chunk
	}
	cand := chunk.Candidates[0]
	if cand.FinishReason != "" && cand.FinishReason != FinishReasonUnspecified && canResumeStream(enableContinuation, continuationToken, cand.FinishReason, chunk.PromptFeedback != nil) {
		candCopy := *cand
		candCopy.FinishReason = ""
		candidatesCopy := make([]*Candidate, len(chunk.Candidates))
		copy(candidatesCopy, chunk.Candidates)
		candidatesCopy[0] = &candCopy
		chunkCopy := *chunk
		chunkCopy.Candidates = candidatesCopy
		return &chunkCopy
	}
	return chunk
}

// streamContinuation owns the state of one automatically continued
// GenerateContentStream run, which is made of one or more streaming requests
// ("hops").
//
// Loop state lives for the whole run: whether continuation is enabled, the
// usage metadata accumulated across finished hops, the token to resume the
// next hop with, the number of consecutive reconnects without progress, and
// the latest error since the run last made progress.
//
// Usage metadata: within a hop, each chunk's usage metadata is the server's
// running total for that hop, so the latest one is the hop's usage (chunks are
// not summed). Across hops, the hops' usage is summed, since each hop is a
// separate request. Each yielded chunk that has usage metadata carries the
// usage of all previous hops plus its own.
//
// endHop decides whether to resume. An [APIError] raised before a hop received
// any chunk (a rejected request) is surfaced at once and left to the HTTP
// retry options; transport drops and clean empty closes are retried. When the
// run gives up, the latest error since it last made progress is surfaced, so
// a drop followed by clean empty closes is not lost.
//
// Per-hop state (the hop field) records what the current hop resumed from and
// what it has observed. It is replaced wholesale by startHop, so nothing leaks
// from one hop into the next.
//
// Usage:
//
//	state := newStreamContinuation(config, enableContinuation)
//	for {
//		callConfig := state.startHop()
//		var hopErr error
//		for chunk, err := range stream(callConfig) {
//			if err != nil {
//				hopErr = err
//				break
//			}
//			yield(state.observe(chunk), nil)
//		}
//		if resume, err := state.endHop(ctx, hopErr); !resume {
//			// yield err if non-nil, then stop.
//		}
//	}
type streamContinuation struct {
	config             *GenerateContentConfig
	enableContinuation bool

	// accumulatedUsageAcrossHops is the usage metadata of all finished hops,
	// summed. Each hop is a separate request whose usage the server reports
	// independently, so hop totals are added (unlike chunks within a hop; see
	// streamHop.usage).
	accumulatedUsageAcrossHops *GenerateContentResponseUsageMetadata
	// resumeToken is the token the next hop resumes from (nil before the first hop).
	resumeToken               []byte
	reconnectsWithoutProgress int
	// lastError is the latest hop error since the run last made progress (a
	// hop yielded content or observed a new checkpoint token).
	lastError error

	// hop is the state of the current hop.
	hop streamHop
}

// streamHop is the per-hop part of a streamContinuation.
type streamHop struct {
	// startToken is the continuation token this hop resumed from (nil for the first hop).
	startToken []byte
	// token is the latest checkpoint continuation token observed in this hop.
	token []byte
	// receivedAnyChunk reports whether this hop received any chunk.
	receivedAnyChunk  bool
	finishReason      FinishReason
	hasPromptFeedback bool
	hasYieldedContent bool
	// usage is the usage for the whole run so far: the usage of all previous
	// hops plus this hop's latest usage metadata. Within a hop, each chunk's
	// usage metadata is the server's running total for the hop, so it replaces
	// the previous value (it is not summed); a chunk without usage metadata
	// leaves it unchanged.
	usage *GenerateContentResponseUsageMetadata
}

// newStreamContinuation returns the state for a new streaming run with config.
func newStreamContinuation(config *GenerateContentConfig, enableContinuation bool) *streamContinuation {
	return &streamContinuation{config: config, enableContinuation: enableContinuation}
}

// startHop starts a new hop and returns the config to send its request with:
// the original config for the first hop, or a copy carrying the resume token.
func (s *streamContinuation) startHop() *GenerateContentConfig {
	s.hop = streamHop{startToken: s.resumeToken}
	if s.hop.startToken == nil {
		return s.config
	}
	return prepareContinuationConfig(s.config, s.hop.startToken)
}

// observe records the prompt feedback, content, finish reason and continuation
// token of one chunk, and returns the chunk to yield: with an intermediate
// finish reason cleared and its usage metadata (if any) set to this hop's
// latest usage plus the usage of all previous hops.
func (s *streamContinuation) observe(chunk *GenerateContentResponse) *GenerateContentResponse {
	if chunk == nil {
		return chunk
	}
	h := &s.hop
	h.receivedAnyChunk = true
	if chunk.PromptFeedback != nil {
		h.hasPromptFeedback = true
	}
	if len(chunk.Candidates) > 0 {
		cand := chunk.Candidates[0]
		if cand != nil && cand.Content != nil && len(cand.Content.Parts) > 0 {
			h.hasYieldedContent = true
		}
		if cand.FinishReason != "" && cand.FinishReason != FinishReasonUnspecified {
			h.finishReason = cand.FinishReason
		}
		if len(cand.ContinuationToken) > 0 {
			h.token = cand.ContinuationToken
		} else if cand.FinishReason != "" && cand.FinishReason != FinishReasonUnspecified && !isResumableFinishReason(cand.FinishReason) {
			h.token = nil
		}
		chunk = clearIntermediateFinishReason(chunk, s.enableContinuation, h.token)
	}
	if chunk.UsageMetadata != nil {
		if s.accumulatedUsageAcrossHops != nil {
			mergedUsage := mergeUsageMetadata(s.accumulatedUsageAcrossHops, chunk.UsageMetadata)
			chunkCopy := *chunk
			chunkCopy.UsageMetadata = mergedUsage
			chunk = &chunkCopy
			h.usage = mergedUsage
		} else {
			h.usage = chunk.UsageMetadata
		}
	}
	return chunk
}

// endHop finishes the current hop, which ended with hopErr (nil if the stream
// ended without an error). It reports whether the run should resume with
// another hop. If not, it returns the error to surface to the caller, or nil if
// the stream should end normally.
//
// Two rules decide which errors are retried and which error is surfaced:
//
//   - Rejected requests are left to the HTTP retry layer. An [APIError] (from an
//     HTTP error status or an error event in the stream) that ends the hop
//     before it received any chunk is returned immediately, without a
//     continuation retry: retrying requests that the API rejected is the job
//     of [HTTPOptions.RetryOptions], which backs off and can be turned off.
//     Transport errors (connection resets, unexpected EOF, malformed chunks)
//     and clean empty closes are still retried from the hop's start token,
//     bounded by maxStreamReconnectsWithoutProgress. Errors after the hop
//     received a chunk are handled like any other failed hop.
//   - Real errors are not lost across retries. The latest error since the run
//     last made progress is remembered, and returned when the run gives up
//     without an error of its own (e.g. a drop followed by clean empty closes
//     until the retry budget runs out). It is never returned when the API ended
//     the hop with a finish reason or prompt feedback.
//
// A failed hop is not resumed once ctx is done; its error is returned as is.
func (s *streamContinuation) endHop(ctx context.Context, hopErr error) (bool, error) {
	if s.hop.usage != nil {
		s.accumulatedUsageAcrossHops = s.hop.usage
	}
	if hopErr != nil && ctx.Err() != nil {
		return false, hopErr
	}
	if hopErr != nil && !s.hop.receivedAnyChunk && isAPIError(hopErr) {
		// The request was rejected; leave it to the HTTP retry options.
		return false, hopErr
	}

	h := &s.hop
	madeProgress := h.hasYieldedContent || (len(h.token) > 0 && !bytes.Equal(h.token, h.startToken))
	if hopErr != nil {
		s.lastError = hopErr
	} else if madeProgress {
		s.lastError = nil
	}

	s.resumeToken, s.reconnectsWithoutProgress = s.nextResumeToken()
	if canResumeStream(s.enableContinuation, s.resumeToken, h.finishReason, h.hasPromptFeedback) {
		return true, nil
	}
	if hopErr != nil {
		return false, hopErr
	}
	gaveUp := (h.finishReason == "" || h.finishReason == FinishReasonUnspecified) && !h.hasPromptFeedback
	if gaveUp && s.lastError != nil {
		return false, s.lastError
	}
	return false, nil
}

// isAPIError reports whether err is (or wraps) an [APIError], i.e. an error
// response from the API rather than a transport or decoding failure.
func isAPIError(err error) bool {
	var apiErr APIError
	if errors.As(err, &apiErr) {
		return true
	}
	var apiErrPtr *APIError
	return errors.As(err, &apiErrPtr)
}

// nextResumeToken returns the token to resume the stream with after the
// current hop (nil if it should not be resumed) and the updated count of
// reconnects without progress.
func (s *streamContinuation) nextResumeToken() ([]byte, int) {
	h := &s.hop
	reconnects := s.reconnectsWithoutProgress
	if h.hasPromptFeedback {
		return nil, 0
	}
	if h.finishReason != "" && h.finishReason != FinishReasonUnspecified {
		if h.finishReason == FinishReasonContinuation && len(h.token) > 0 && !bytes.Equal(h.token, h.startToken) {
			return h.token, 0
		}
		return nil, reconnects
	}
	if len(h.token) > 0 && !bytes.Equal(h.token, h.startToken) {
		return h.token, 0
	}
	if h.hasYieldedContent || reconnects >= maxStreamReconnectsWithoutProgress {
		return nil, reconnects
	}
	return h.startToken, reconnects + 1
}

func shouldContinueGeneration(response *GenerateContentResponse) []byte {
	if response == nil || len(response.Candidates) == 0 {
		return nil
	}
	cand := response.Candidates[0]
	if cand == nil {
		return nil
	}
	if len(cand.ContinuationToken) > 0 && isResumableFinishReason(cand.FinishReason) {
		return cand.ContinuationToken
	}
	return nil
}

func prepareContinuationConfig(config *GenerateContentConfig, continuationToken []byte) *GenerateContentConfig {
	if config == nil {
		return &GenerateContentConfig{
			ContinuationToken: continuationToken,
		}
	}
	cloned := *config
	cloned.ContinuationToken = continuationToken
	return &cloned
}

func clearStaleContinuationOnCandidate(cand *Candidate) *Candidate {
	if cand == nil || (len(cand.ContinuationToken) == 0 && cand.FinishReason != FinishReasonContinuation) {
		return cand
	}
	cp := *cand
	cp.ContinuationToken = nil
	if cp.FinishReason == FinishReasonContinuation {
		cp.FinishReason = ""
		cp.FinishMessage = ""
	}
	return &cp
}

func mergeCandidates(prevCandidates, currCandidates []*Candidate) []*Candidate {
	if len(currCandidates) == 0 {
		if prevCandidates == nil {
			return nil
		}
		out := make([]*Candidate, len(prevCandidates))
		for i, prevCand := range prevCandidates {
			var copied *Candidate
			if prevCand != nil {
				copied = deepCopyValue(reflect.ValueOf(prevCand)).Interface().(*Candidate)
			}
			out[i] = clearStaleContinuationOnCandidate(copied)
		}
		return out
	}

	maxLen := len(prevCandidates)
	if len(currCandidates) > maxLen {
		maxLen = len(currCandidates)
	}
	out := make([]*Candidate, maxLen)
	for i := 0; i < maxLen; i++ {
		var prevCand, currCand *Candidate
		if i < len(prevCandidates) {
			prevCand = prevCandidates[i]
		}
		if i < len(currCandidates) {
			currCand = currCandidates[i]
		}
		if currCand == nil {
			var copied *Candidate
			if prevCand != nil {
				copied = deepCopyValue(reflect.ValueOf(prevCand)).Interface().(*Candidate)
			}
			out[i] = clearStaleContinuationOnCandidate(copied)
			continue
		}
		mergedElem := mergeValuesReflect(reflect.ValueOf(prevCand), reflect.ValueOf(currCand), "candidate", false)
		if mergedElem.IsValid() && !mergedElem.IsNil() {
			out[i] = mergedElem.Interface().(*Candidate)
		}
	}
	return out
}

func mergeContinuationResponses(responses []*GenerateContentResponse) (*GenerateContentResponse, error) {
	if len(responses) == 0 {
		return &GenerateContentResponse{}, nil
	}
	if len(responses) == 1 {
		return responses[0], nil
	}

	merged := responses[0]
	for i := 1; i < len(responses); i++ {
		curr := responses[i]
		res := mergeValuesReflect(reflect.ValueOf(merged), reflect.ValueOf(curr), "", false)
		if !res.IsValid() {
			return nil, fmt.Errorf("failed to merge continuation responses at index %d", i)
		}
		prevCandidates := merged.Candidates
		merged = res.Interface().(*GenerateContentResponse)
		if len(prevCandidates) > 0 && (curr == nil || len(curr.Candidates) == 0) {
			merged.Candidates = mergeCandidates(prevCandidates, nil)
		}
	}

	// Always retain SDKHTTPResponse from the latest hop
	merged.SDKHTTPResponse = responses[len(responses)-1].SDKHTTPResponse
	return merged, nil
}

func mergeUsageMetadata(prev, curr *GenerateContentResponseUsageMetadata) *GenerateContentResponseUsageMetadata {
	if curr == nil {
		return prev
	}
	if prev == nil {
		return curr
	}
	res := mergeValuesReflect(reflect.ValueOf(prev), reflect.ValueOf(curr), "usageMetadata", true)
	if !res.IsValid() || res.IsNil() {
		return nil
	}
	return res.Interface().(*GenerateContentResponseUsageMetadata)
}

func isTerminalHopField(fieldName string) bool {
	f := strings.ToLower(fieldName)
	return f == "continuationtoken" ||
		f == "continuation_token" ||
		f == "finishreason" ||
		f == "finish_reason" ||
		f == "finishmessage" ||
		f == "finish_message"
}

func isTokensDetailsField(fieldName string) bool {
	f := strings.ToLower(fieldName)
	return strings.HasSuffix(f, "tokensdetails") ||
		strings.HasSuffix(f, "tokens_details")
}

func isSafetyRatingsField(fieldName string) bool {
	f := strings.ToLower(fieldName)
	return f == "safetyratings" || f == "safety_ratings"
}

func isCandidatesField(fieldName string) bool {
	f := strings.ToLower(fieldName)
	return f == "candidates"
}

func isCountOrSumField(fieldName string) bool {
	f := strings.ToLower(fieldName)
	return f == "tokencount" ||
		f == "token_count" ||
		strings.HasSuffix(f, "count") ||
		strings.HasSuffix(f, "_count") ||
		strings.HasSuffix(f, "sum") ||
		strings.HasSuffix(f, "_sum")
}

func mergeValuesReflect(prev, curr reflect.Value, fieldName string, isInsideUsageMetadata bool) reflect.Value {
	// Rule 1: Terminal hop fields always overwrite with curr (even if zero / nil)
	if isTerminalHopField(fieldName) {
		if !curr.IsValid() {
			if prev.IsValid() {
				return reflect.Zero(prev.Type())
			}
			return curr
		}
		return deepCopyValue(curr)
	}

	// Merge preserved candidates against an empty Candidate when curr.Candidates
	// is nil/empty so terminal continuation state is cleared before Rule 2.
	if isCandidatesField(fieldName) &&
		prev.IsValid() && prev.Kind() == reflect.Slice && prev.Len() > 0 &&
		(!curr.IsValid() || curr.Kind() != reflect.Slice || curr.Len() == 0) {
		emptyCandidate := reflect.ValueOf(&Candidate{})
		newSlice := reflect.MakeSlice(prev.Type(), prev.Len(), prev.Len())
		for i := 0; i < prev.Len(); i++ {
			newSlice.Index(i).Set(mergeValuesReflect(prev.Index(i), emptyCandidate, "candidate", isInsideUsageMetadata))
		}
		return newSlice
	}

	// Rule 2: Null / Absent handling: keep non-zero side
	if !curr.IsValid() || (curr.IsZero() && curr.Type() != reflect.TypeOf(Candidate{})) {
		return deepCopyValue(prev)
	}
	if !prev.IsValid() || prev.IsZero() {
		return deepCopyValue(curr)
	}

	// SdkHttpResponse: retain from curr
	if strings.EqualFold(fieldName, "sdkhttpresponse") || strings.EqualFold(fieldName, "sdk_http_response") {
		return deepCopyValue(curr)
	}

	// Pointers
	if prev.Kind() == reflect.Pointer && curr.Kind() == reflect.Pointer {
		if prevCand, ok := prev.Interface().(*Candidate); ok {
			if currCand, ok := curr.Interface().(*Candidate); ok {
				curr = reflect.ValueOf(shiftCandidateGroundingSupports(prevCand, currCand))
			}
		}
		var initialPrompt int32
		if prevUM, ok := prev.Interface().(*GenerateContentResponseUsageMetadata); ok {
			if currUM, ok := curr.Interface().(*GenerateContentResponseUsageMetadata); ok {
				initialPrompt = prevUM.InitialPromptTokenCount()
				if initialPrompt == 0 {
					initialPrompt = currUM.InitialPromptTokenCount()
				}
			}
		}
		mergedElem := mergeValuesReflect(prev.Elem(), curr.Elem(), fieldName, isInsideUsageMetadata)
		newPtr := reflect.New(prev.Type().Elem())
		newPtr.Elem().Set(mergedElem)
		if mergedUM, ok := newPtr.Interface().(*GenerateContentResponseUsageMetadata); ok && initialPrompt != 0 {
			setInitialPromptTokenCount(mergedUM, initialPrompt)
		}
		return newPtr
	}

	// Interfaces
	if prev.Kind() == reflect.Interface && curr.Kind() == reflect.Interface {
		mergedElem := mergeValuesReflect(prev.Elem(), curr.Elem(), fieldName, isInsideUsageMetadata)
		newIface := reflect.New(prev.Type()).Elem()
		newIface.Set(mergedElem)
		return newIface
	}

	// Structs
	if prev.Kind() == reflect.Struct && curr.Kind() == reflect.Struct {
		// Special handling for time.Time: scalar, take curr
		if prev.Type() == reflect.TypeOf(time.Time{}) {
			return curr
		}

		inUsage := isInsideUsageMetadata ||
			strings.EqualFold(fieldName, "usagemetadata") ||
			strings.EqualFold(fieldName, "usage_metadata")

		newStruct := reflect.New(prev.Type()).Elem()
		for i := 0; i < prev.NumField(); i++ {
			field := prev.Type().Field(i)
			if !field.IsExported() {
				continue
			}
			fName := field.Name
			prevF := prev.Field(i)
			currF := curr.Field(i)
			mergedF := mergeValuesReflect(prevF, currF, fName, inUsage)
			if mergedF.IsValid() && newStruct.Field(i).CanSet() {
				newStruct.Field(i).Set(mergedF)
			}
		}
		return newStruct
	}

	// Slices
	if prev.Kind() == reflect.Slice && curr.Kind() == reflect.Slice {
		// Keyed-list exception 1: candidates: merge element-wise
		if isCandidatesField(fieldName) {
			if prevCands, ok := prev.Interface().([]*Candidate); ok {
				if currCands, ok := curr.Interface().([]*Candidate); ok {
					return reflect.ValueOf(mergeCandidates(prevCands, currCands))
				}
			}
			maxLen := prev.Len()
			if curr.Len() > maxLen {
				maxLen = curr.Len()
			}
			newSlice := reflect.MakeSlice(prev.Type(), maxLen, maxLen)
			for i := 0; i < maxLen; i++ {
				var p, c reflect.Value
				if i < prev.Len() {
					p = prev.Index(i)
				}
				if i < curr.Len() {
					c = curr.Index(i)
				}
				mergedElem := mergeValuesReflect(p, c, "candidate", isInsideUsageMetadata)
				newSlice.Index(i).Set(mergedElem)
			}
			return newSlice
		}

		// Keyed-list exception 2: ModalityTokenCount lists (*TokensDetails): group by modality and sum tokenCount
		if isTokensDetailsField(fieldName) {
			return mergeModalityTokenCounts(prev, curr)
		}

		// Keyed-list exception 3: safetyRatings: group by category and keep latest rating
		if isSafetyRatingsField(fieldName) {
			return mergeSafetyRatings(prev, curr)
		}

		// Default: Concatenate prev + curr preserving all items in order
		newSlice := reflect.MakeSlice(prev.Type(), prev.Len()+curr.Len(), prev.Len()+curr.Len())
		for i := 0; i < prev.Len(); i++ {
			newSlice.Index(i).Set(deepCopyValue(prev.Index(i)))
		}
		for i := 0; i < curr.Len(); i++ {
			newSlice.Index(prev.Len() + i).Set(deepCopyValue(curr.Index(i)))
		}
		return newSlice
	}

	// Numbers (sum inside usageMetadata or tokenCount / *Count / *Sum)
	shouldSum := isInsideUsageMetadata || isCountOrSumField(fieldName)
	if shouldSum {
		switch prev.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			sum := prev.Int() + curr.Int()
			return reflect.ValueOf(sum).Convert(prev.Type())
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			sum := prev.Uint() + curr.Uint()
			return reflect.ValueOf(sum).Convert(prev.Type())
		case reflect.Float32, reflect.Float64:
			sum := prev.Float() + curr.Float()
			return reflect.ValueOf(sum).Convert(prev.Type())
		}
	}

	// Other Scalars (numbers not summed, strings, booleans, enums) - latest hop wins
	return deepCopyValue(curr)
}

func mergeModalityTokenCounts(prev, curr reflect.Value) reflect.Value {
	elemType := prev.Type().Elem()
	isPtr := elemType.Kind() == reflect.Pointer
	var structType reflect.Type
	if isPtr {
		structType = elemType.Elem()
	} else {
		structType = elemType
	}

	countsByModality := make(map[any]int64)
	var order []any
	modalityValues := make(map[any]reflect.Value)

	accumulate := func(slice reflect.Value) {
		for i := 0; i < slice.Len(); i++ {
			item := slice.Index(i)
			if item.IsZero() {
				continue
			}
			structVal := item
			if isPtr {
				if item.IsNil() {
					continue
				}
				structVal = item.Elem()
			}
			modField := structVal.FieldByName("Modality")
			countField := structVal.FieldByName("TokenCount")
			if !modField.IsValid() || !countField.IsValid() {
				continue
			}
			modKey := modField.Interface()
			var count int64
			switch countField.Kind() {
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				count = countField.Int()
			case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
				count = int64(countField.Uint())
			}

			if _, exists := countsByModality[modKey]; !exists {
				countsByModality[modKey] = 0
				order = append(order, modKey)
				modalityValues[modKey] = modField
			}
			countsByModality[modKey] += count
		}
	}

	accumulate(prev)
	accumulate(curr)

	resultSlice := reflect.MakeSlice(prev.Type(), len(order), len(order))
	for i, modKey := range order {
		newStruct := reflect.New(structType).Elem()
		modField := newStruct.FieldByName("Modality")
		if modField.IsValid() && modField.CanSet() {
			modField.Set(modalityValues[modKey])
		}
		countField := newStruct.FieldByName("TokenCount")
		if countField.IsValid() && countField.CanSet() {
			countField.Set(reflect.ValueOf(countsByModality[modKey]).Convert(countField.Type()))
		}
		if isPtr {
			ptr := reflect.New(structType)
			ptr.Elem().Set(newStruct)
			resultSlice.Index(i).Set(ptr)
		} else {
			resultSlice.Index(i).Set(newStruct)
		}
	}
	return resultSlice
}

func mergeSafetyRatings(prev, curr reflect.Value) reflect.Value {
	elemType := prev.Type().Elem()
	isPtr := elemType.Kind() == reflect.Pointer
	byCategory := make(map[any]reflect.Value)
	var order []any

	accumulate := func(slice reflect.Value) {
		for i := 0; i < slice.Len(); i++ {
			item := slice.Index(i)
			if item.IsZero() {
				continue
			}
			structVal := item
			if isPtr {
				if item.IsNil() {
					continue
				}
				structVal = item.Elem()
			}
			catField := structVal.FieldByName("Category")
			if !catField.IsValid() {
				continue
			}
			catKey := catField.Interface()
			if _, exists := byCategory[catKey]; !exists {
				order = append(order, catKey)
			}
			byCategory[catKey] = deepCopyValue(item)
		}
	}

	accumulate(prev)
	accumulate(curr)

	resultSlice := reflect.MakeSlice(prev.Type(), len(order), len(order))
	for i, catKey := range order {
		resultSlice.Index(i).Set(byCategory[catKey])
	}
	return resultSlice
}

func shiftCandidateGroundingSupports(prevCand, currCand *Candidate) *Candidate {
	if prevCand == nil || currCand == nil || currCand.GroundingMetadata == nil || len(currCand.GroundingMetadata.GroundingSupports) == 0 {
		return currCand
	}
	var chunkOffset int32
	if prevCand.GroundingMetadata != nil {
		chunkOffset = int32(len(prevCand.GroundingMetadata.GroundingChunks))
	}
	var partOffset int32
	if prevCand.Content != nil {
		partOffset = int32(len(prevCand.Content.Parts))
	}
	if chunkOffset == 0 && partOffset == 0 {
		return currCand
	}

	shiftedSupports := make([]*GroundingSupport, len(currCand.GroundingMetadata.GroundingSupports))
	for i, s := range currCand.GroundingMetadata.GroundingSupports {
		if s == nil {
			continue
		}
		sCopy := *s
		if chunkOffset > 0 && len(s.GroundingChunkIndices) > 0 {
			shiftedIndices := make([]int32, len(s.GroundingChunkIndices))
			for j, idx := range s.GroundingChunkIndices {
				shiftedIndices[j] = idx + chunkOffset
			}
			sCopy.GroundingChunkIndices = shiftedIndices
		}
		if partOffset > 0 && s.Segment != nil {
			segCopy := *s.Segment
			segCopy.PartIndex += partOffset
			sCopy.Segment = &segCopy
		}
		shiftedSupports[i] = &sCopy
	}

	gmCopy := *currCand.GroundingMetadata
	gmCopy.GroundingSupports = shiftedSupports
	candCopy := *currCand
	candCopy.GroundingMetadata = &gmCopy
	return &candCopy
}

func deepCopyValue(v reflect.Value) reflect.Value {
	if !v.IsValid() {
		return v
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		newPtr := reflect.New(v.Type().Elem())
		newPtr.Elem().Set(deepCopyValue(v.Elem()))
		if origUM, ok := v.Interface().(*GenerateContentResponseUsageMetadata); ok {
			if newUM, ok := newPtr.Interface().(*GenerateContentResponseUsageMetadata); ok {
				setInitialPromptTokenCount(newUM, origUM.InitialPromptTokenCount())
			}
		}
		return newPtr
	case reflect.Interface:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		newIface := reflect.New(v.Type()).Elem()
		newIface.Set(deepCopyValue(v.Elem()))
		return newIface
	case reflect.Slice:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		newSlice := reflect.MakeSlice(v.Type(), v.Len(), v.Cap())
		for i := 0; i < v.Len(); i++ {
			newSlice.Index(i).Set(deepCopyValue(v.Index(i)))
		}
		return newSlice
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			return v
		}
		newStruct := reflect.New(v.Type()).Elem()
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && newStruct.Field(i).CanSet() {
				newStruct.Field(i).Set(deepCopyValue(v.Field(i)))
			}
		}
		return newStruct
	case reflect.Map:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		newMap := reflect.MakeMapWithSize(v.Type(), v.Len())
		iter := v.MapRange()
		for iter.Next() {
			newMap.SetMapIndex(iter.Key(), deepCopyValue(iter.Value()))
		}
		return newMap
	default:
		return v
	}
}
