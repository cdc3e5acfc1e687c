#ifndef STEP_SUMS_GLSL
#define STEP_SUMS_GLSL
// step_sums.glsl — shallow water's sums of a step as its y window forms them (WINDOW_SUMS), for
// settling (KERNEL_SETTLE) to read without summing the window's parts
// (shaders/sim/shallow_water.comp: "Dry cells and the mean velocity"). Every part of the window
// (32 invocations' cells) adds itself with integer atomics to one of sum_sets sets of words
// (the set by the part's index, so that few adds meet on one word): the sum of v in fixed point,
// the wet cells, the deepest water's bits (a depth is never negative, and non-negative floats
// order as their bits do). Integer adds give the same sums in any order, so a run rounds the
// same way every time, and nothing waits for them: summing the parts in a kernel of their own
// took a chain of dependent loads and sums that cost 12 us at 1024^2 however its work groups
// were shaped (docs/performance.md).
//
// The fixed point: units of 2^-sum_exponent, which the host chooses so that cells x the field's
// range (a bound on |sum v|, as |v| <= the range) is below 2^99 units (sim/shallow_water.cpp,
// sum_exponent). That bound is loose (the range includes all the water there is), so the units
// keep a hundred bits: a part's |units| as five 20-bit limbs with the part's sign. The split is
// exact in fp32: floor and the subtraction of a multiple of a power of two at or above the
// value's last bit lose nothing; only the low limb's fraction of a unit is rounded. No word takes
// more than 2047 adds of up to 2^20 (the host's sum_sets), so each stays within an int.
//
// The includer declares deficit_step[] (binding 15) and settle_tile_count(), and for settling
// GROUP_SIZE and what chooses the next step (store_mean, choose_sweeps, window_depth). The words
// follow the tiles' steps, then the last step on which a cell came out below its bottom and the
// last step of the y window.
uniform int sum_sets;
uniform int sum_exponent;
const int kSumLimbs = 5;
const int kSumWords = kSumLimbs + 2;  // the limbs, the wet cells, the deepest water
int step_sums_word(int set) { return settle_tile_count() + set * kSumWords; }
int below_step_word() { return step_sums_word(sum_sets); }
int window_step_word() { return below_step_word() + 1; }
const float kLimb = 1048576.0;                  // 2^20
const float kInverseLimb = 9.5367431640625e-7;  // 2^-20

#ifdef WINDOW_SUMS
// Adds part (sum of v, wet cells, deepest water, 1 where a cell came out below its bottom) to
// the step's sums. A non-finite or out-of-range part (a blow-up, flagged already) takes the
// largest value instead of an undefined conversion.
//
// After a step on which a cell came out below its bottom (on a shoreline, most steps), the parts
// add nothing and the step's sums are not marked as the state's: settling sums the parts, and
// the adds would cost the step for nothing (the png terrain at 1024^2 on the H100 ran 4.8%
// faster without them). The word read may already hold this step's index, written by a part
// here: the step then settles, whichever way each part read it.
void add_step_sums(int part_index, vec4 part) {
    if (part.w != 0.0) deficit_step[below_step_word()] = step_index;
    if (deficit_step[below_step_word()] == step_index - 1) return;
    if (part_index == 0) deficit_step[window_step_word()] = step_index;
    const int word = step_sums_word(part_index % sum_sets);
    float units = ldexp(abs(part.x), sum_exponent);
    if (!(units < 1.0e30)) units = 1.0e30;  // below 2^100
    const int sign = part.x < 0.0 ? -1 : 1;
    float scale = 1208925819614629174706176.0;  // 2^80, the top limb's unit, and its inverse
    float inverse = 8.2718061255302767487140869206996285356581211090087890625e-25;
    for (int limb = kSumLimbs - 1; limb > 0; --limb) {
        const float digit = floor(units * inverse);
        units -= digit * scale;
        if (digit != 0.0) atomicAdd(deficit_step[word + limb], sign * int(digit));
        scale *= kInverseLimb;
        inverse *= kLimb;
    }
    const float low = roundEven(units);
    if (low != 0.0) atomicAdd(deficit_step[word], sign * int(low));
    atomicAdd(deficit_step[word + kSumLimbs], int(part.y));
    atomicMax(deficit_step[word + kSumLimbs + 1], floatBitsToInt(part.z));
}
#endif

#ifdef KERNEL_SETTLE
// Whether the step's sums hold the new state's: the y window ran and no cell came out below its
// bottom (words no work group of settling changes).
bool step_sums_hold() {
    return deficit_step[window_step_word()] == step_index &&
           deficit_step[below_step_word()] != step_index;
}

// Where the sums come from elsewhere (settling sums the tiles): zeroes the sets for the next
// step, set `first` and every `stride`-th after it.
void zero_step_sums(int first, int stride) {
    for (int set = first; set < sum_sets; set += stride)
        for (int k = 0; k < kSumWords; ++k) deficit_step[step_sums_word(set) + k] = 0;
}

// The step's sums (sum of v, wet cells, deepest water, 0), in invocation 0; every invocation of
// the work group calls it, and it zeroes the sets for the next step. The first kSumLanes
// invocations read a set each (more where there are more sets), one round trip, and the lanes'
// sums meet in a tree in shared memory as 20-bit digits: ints, where float64 limbs, 12 KB of
// shared memory for a work group's 256 invocations, took settling's first dispatch from 22 to
// 32 us at 1024^2 on a shoreline, and one subgroup reading eight sets each gave back most of
// what the step's sums save (H100, docs/performance.md).
const int kSumLanes = 64;
const int kDigitMask = 0xfffff;  // 2^20 - 1
shared int sum_digits[kSumWords][kSumLanes];
// Brings digits[0 .. kSumLimbs - 2] into [0, 2^20) by carries into the next (>> floors).
void carry_digits(inout int digits[kSumLimbs]) {
    for (int k = 0; k + 1 < kSumLimbs; ++k) {
        digits[k + 1] += digits[k] >> 20;
        digits[k] &= kDigitMask;
    }
}
vec4 read_step_sums(int t) {
    int digits[kSumLimbs];
    for (int k = 0; k < kSumLimbs; ++k) digits[k] = 0;
    uint wet = 0u, deepest = 0u;
    if (t < kSumLanes) {
        for (int set = t; set < sum_sets; set += kSumLanes) {
            const int word = step_sums_word(set);
            for (int k = 0; k < kSumLimbs; ++k) {  // a word's digit, and its carry on
                const int value = deficit_step[word + k];
                if (k + 1 == kSumLimbs) {
                    digits[k] += value;  // the top: its sum over every part is below 2^20
                } else {
                    digits[k] += value & kDigitMask;
                    digits[k + 1] += value >> 20;
                }
            }
            carry_digits(digits);
            wet += uint(deficit_step[word + kSumLimbs]);
            deepest = max(deepest, uint(deficit_step[word + kSumLimbs + 1]));
        }
        zero_step_sums(t, kSumLanes);  // each invocation its own sets, read above
        for (int k = 0; k < kSumLimbs; ++k) sum_digits[k][t] = digits[k];
        sum_digits[kSumLimbs][t] = int(wet);
        sum_digits[kSumLimbs + 1][t] = int(deepest);
    }
    // Digits below 2^20 a lane: below 2^26 summed over the lanes.
    for (int stride = kSumLanes / 2; stride > 0; stride /= 2) {
        memoryBarrierShared();
        barrier();
        if (t < stride) {
            for (int k = 0; k <= kSumLimbs; ++k) sum_digits[k][t] += sum_digits[k][t + stride];
            sum_digits[kSumLimbs + 1][t] =
                max(sum_digits[kSumLimbs + 1][t], sum_digits[kSumLimbs + 1][t + stride]);
        }
    }
    if (t != 0) return vec4(0.0);
    // The units sum_k digits[k] 2^(20 k), every digit but the top in [0, 2^20) after the
    // carries, from the top down: each partial is the units over 2^(20 k), floored, no larger
    // than the sum, so float64 rounds the sum by a few parts in 2^53 of it, whatever its sign.
    for (int k = 0; k < kSumLimbs; ++k) digits[k] = sum_digits[k][0];
    carry_digits(digits);
    double units = 0.0;
    for (int k = kSumLimbs - 1; k >= 0; --k) units = units * double(kLimb) + double(digits[k]);
    // A power of two as a factor: llvmpipe's float64 ldexp got negative values wrong.
    return vec4(float(units * double(ldexp(1.0, -sum_exponent))),
                float(uint(sum_digits[kSumLimbs][0])), intBitsToFloat(sum_digits[kSumLimbs + 1][0]),
                0.0);
}

// Work group 0 of settling after a step whose sums hold: the mean velocity, no settling, and the
// next step's sweeps (the windows unless the water is too deep for them).
void store_step_sums(int t) {
    const vec4 sums = read_step_sums(t);
    if (t != 0) return;
    store_mean(sums);
    if (!(sums.z <= window_depth)) choose_sweeps(false);
}
#endif
#endif
