// Renders every curve family through paramd's engine and prints CSV for
// scripts/plot-curves.py (run both with `make plots`). The values are the engine's own: each
// curve drives a real `Renderer` at 48 kHz, and the value plotted is the sounding value of the
// parameter at the frame, as the renderer reports it (`Renderer.sounding`) — nothing is
// recomputed from formulas here or in the plot script.
//
// The animated parameter is `pan`, from 0 to 0.5: its range (−1…1) leaves room for an
// overshoot of the whole distance either way before the engine's clamp would cut it, and
// value × 2 is eased progress exactly (the linear domain decodes 0 + 0.5·eased).
//
// Output: `figure,curve,x,y` rows (the curve quoted: its name may hold commas). x is progress (k/N) for curves timed by the message's
// duration (1 s here), seconds for physical springs (their own time). Rows whose figure ends in
// `:keys` are the keyframe values at their key times (input, drawn as markers); rows whose
// figure ends in `:settle` give a physical spring's settle time as the engine prepares it.

import ParamCore

let rate = 48_000.0
/// Points per second of animation plotted (one every 120 frames at 48 kHz).
let pointsPerSecond = 400
let stride = Int(rate) / pointsPerSecond
let distance = 0.5

func parse(_ text: String) -> TimingCurve {
    do { return try TimingCurve.parse(text) } catch { fatalError("\(text): \(error)") }
}

/// Renders `command` from frame 0 and returns the pan at frames 0, stride, 2·stride, … up to
/// `seconds`, as eased progress (pan / distance).
func render(_ command: Command, seconds: Double) -> [Double] {
    var renderer = Renderer(sampleRate: rate)
    defer { renderer.deallocate() }
    let out1 = UnsafeMutablePointer<Float>.allocate(capacity: stride)
    let out2 = UnsafeMutablePointer<Float>.allocate(capacity: stride)
    defer { out1.deallocate(); out2.deallocate() }
    _ = renderer.commands.push(TimedCommand(command))
    var values: [Double] = []
    // Frame 0 alone, then periods of `stride` frames: each period's last frame is sampled.
    renderer.render(frames: 1, in1: nil, in2: nil, out1: out1, out2: out2)
    values.append(renderer.sounding(.pan) / distance)
    let points = Int((seconds * Double(pointsPerSecond)).rounded())
    for _ in 0..<points {
        renderer.render(frames: stride, in1: nil, in2: nil, out1: out1, out2: out2)
        values.append(renderer.sounding(.pan) / distance)
        while renderer.events.pop() != nil {}
    }
    return values
}

func animation(_ curveText: String, seconds: Double = 1) -> Command {
    var spec = AnimationSpec(target: distance, seconds: seconds, curve: parse(curveText), domain: .linear)
    spec.from = 0
    return .animate(.pan, spec)
}

func emit(_ figure: String, _ name: String, _ values: [Double], step: Double) {
    for (k, v) in values.enumerated() {
        print("\(figure),\"\(name)\",\(Double(k) * step),\(v)")
    }
}

/// A curve timed by the message's duration: 1 s, plotted over progress 0 … 1.15 (it rests
/// on the target after 1).
func timed(_ figure: String, _ curveText: String, label: String? = nil) {
    let values = render(animation(curveText), seconds: 1.15)
    emit(figure, label ?? curveText, values, step: 1 / Double(pointsPerSecond))
}

print("figure,curve,x,y")

// Core Animation's named Béziers, linear, and a CSS cubic-bezier that overshoots both ends.
for c in ["linear", "easeIn", "easeOut", "easeInEaseOut", "default", "cubic-bezier(0.68,-0.55,0.27,1.55)"] {
    timed("bezier", c)
}

// Penner: every family in its three directions.
for family in ["Quad", "Cubic", "Quart", "Quint", "Sine", "Expo", "Circ", "Back", "Elastic", "Bounce"] {
    for direction in ["easeIn", "easeOut", "easeInOut"] {
        timed("penner-\(family)", direction + family, label: direction)
    }
}

// CSS steps.
for position in ["jump-start", "jump-end", "jump-none", "jump-both"] {
    timed("steps", "steps(4,\(position))")
}

// SuperCollider curvature.
for c in ["-8", "-4", "-2", "0", "2", "4", "8"] {
    timed("curvature", "curve(\(c))")
}

// Physical springs in their own time, with their settle times as the engine prepares them.
for c in ["spring(1,100,5)", "spring(1,100,10)", "spring(1,100,20)", "spring(1,100,30)",
          "spring(1,100,10,5)", "spring(1,170,26,-2)"] {
    let curve = parse(c)
    var state = CurveState()
    let settle = curve.prepare(requestedSeconds: 1, velocity: .nan, state: &state)
    let values = render(animation(c), seconds: 4)
    emit("spring", c, values, step: 1 / Double(pointsPerSecond))
    print("spring:settle,\"\(c)\",\(settle),1")
}

// UIKit springs fitted to a 1 s duration.
for c in ["spring(0.2)", "spring(0.5)", "spring(0.8)", "spring(1)", "spring(0.5,10)", "spring(2)"] {
    timed("uikit", c)
}

// Keyframes: the same values and key times in each calculation mode.
let keyValues = [0.0, 0.8, 0.3, 1.0, 0.6]
let keyTimes = [0.0, 0.15, 0.5, 0.6, 1.0]
for (k, v) in keyValues.enumerated() { print("keyframes:keys,values,\(keyTimes[k]),\(v)") }
for mode in KeyframeCalculation.allCases {
    var spec = KeyframeSpec()
    spec.count = keyValues.count
    for k in 0..<keyValues.count {
        spec.values[k] = keyValues[k] * distance
        spec.times[k] = keyTimes[k]
    }
    spec.calculation = mode
    spec.seconds = 1
    spec.domain = .linear
    emit("keyframes", "\(mode)", render(.keyframes(.pan, spec), seconds: 1.15), step: 1 / Double(pointsPerSecond))
}
