// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// The one-drop as evidence of where a 4/4 bar starts: reggae's groove leaves beat 1 empty (the
/// "dropped" one) and plays the kick and the snare (a rim shot or a cross-stick) together on beat 3,
/// and nowhere else in the bar.
///
/// The bar features read the kick as a downbeat's mark (``BarFeatures``), so a one-drop's bars came
/// out with their lines on its beat 3, half a bar out (docs/bars.md, session 83). A kick alone on one
/// beat in four is beat 1 in most grooves (hip-hop's, drum and bass's, a half-time feel's); what
/// tells the one-drop is the snare on that same beat: elsewhere the snare keeps off the kick's beat 1
/// (the back-beat on 2 and 4, a half-time feel's on 3).
///
/// The evidence is two paired t statistics over the fours of beats, each held to
/// ``DrumDetector/minimumT``, the drum check's own margin, over at least ``BackBeat/minimumBars``
/// fours: the learned kick alone on one beat of each four (``DrumDetector/standingOutAlone(_:every:heardFrom:)``,
/// only the fours where a kick is heard), and, on that beat, the snare less the mean of the snare on
/// the other three.
enum OneDrop {
    /// The beat (0…3) of each four of `kicks` and `snares` (per beat, `nil` where the detector did not
    /// read) where a one-drop plays: its beat 3, the kick alone there and the snare with it; `nil`
    /// where the drums do not show one.
    static func drop(kicks: [Float?], snares: [Float?]) -> Int? {
        guard
            let beat = DrumDetector.standingOutAlone(kicks, every: 4, heardFrom: GridFitter.drumHeard)
        else { return nil }
        let differences = BackBeat.fours(snares, from: beat).map { four in
            Double(four[0] - (four[1] + four[2] + four[3]) / 3)
        }
        guard differences.count >= BackBeat.minimumBars, PairedT.of(differences) >= DrumDetector.minimumT else {
            return nil
        }
        return beat
    }

    /// The 4/4 phase (the first downbeat, 0…3) of a one-drop played on beat `drop` of each four: two
    /// beats before it.
    static func phase(drop: Int) -> Int { (drop + 2) % 4 }
}
