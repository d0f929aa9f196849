// The f64 error functions (TW is f64 or vec4<f64>), in software from f64 arithmetic (f64_math.wgsl): erf from a table of
// Taylor expansions, erfc accurate in relative terms into the tail.
#import f64_math

// erf: for |x| within 1/8 of a center c = k/4 (k = 0..24; erf is 1 in f64 past 5.93),
// erf(c + h) = erf(c) + 2/sqrt(pi) e^(-c^2) * integral of e^(-2ct - t^2) over [0, h], the
// integrand's Taylor coefficients by their recurrence j b_j = -2c b_(j-1) - 2 b_(j-2) (its
// terms fall as (2ch)^j / j!, below 2^-60 by j = 22); erf(c) as a double-double and
// 2/sqrt(pi) e^(-c^2) from tests/numerics/golden/erf_table.py.
struct Erf64 {
    h: TW,
    l: TW,
    w: TW,
}

fn erf_pick64_(t: Erf64, on: TB, h: TW, l: TW, w: TW) -> Erf64 {
    return Erf64(select(t.h, h, on), select(t.l, l, on), select(t.w, w, on));
}

fn erf_table64_(k: TW) -> Erf64 {
    var t = Erf64(TW(0.0), TW(0.0), TW(1.1283791670955126));
    t = erf_pick64_(t, k == TW(1.0), TW(0.27632639016823696), TW(-2.4227076221184163e-17), TW(1.0600141293761143));
    t = erf_pick64_(t, k == TW(2.0), TW(0.5204998778130465), TW(1.900077467916287e-17), TW(0.8787825789354448));
    t = erf_pick64_(t, k == TW(3.0), TW(0.7111556336535151), TW(4.69744077164289e-17), TW(0.6429310691952074));
    t = erf_pick64_(t, k == TW(4.0), TW(0.8427007929497149), TW(-2.4801011789118602e-17), TW(0.4151074974205947));
    t = erf_pick64_(t, k == TW(5.0), TW(0.9229001282564583), TW(-5.51775442986392e-17), TW(0.2365211224472908));
    t = erf_pick64_(t, k == TW(6.0), TW(0.9661051464753108), TW(-3.3867031441680696e-17), TW(0.11893028922362937));
    t = erf_pick64_(t, k == TW(7.0), TW(0.9866716712191824), TW(2.1431190289565338e-17), TW(0.05277499593015037));
    t = erf_pick64_(t, k == TW(8.0), TW(0.9953222650189527), TW(2.20719858329765e-17), TW(0.020666985354092053));
    t = erf_pick64_(t, k == TW(9.0), TW(0.9985372834133188), TW(2.6956405885413457e-17), TW(0.007142319022017983));
    t = erf_pick64_(t, k == TW(10.0), TW(0.999593047982555), TW(4.6925151097042234e-17), TW(0.0021782842303527095));
    t = erf_pick64_(t, k == TW(11.0), TW(0.9998993780778803), TW(4.451378916214761e-17), TW(0.0005862772470937923));
    t = erf_pick64_(t, k == TW(12.0), TW(0.9999779095030014), TW(5.363397058636269e-17), TW(0.00013925305194674786));
    t = erf_pick64_(t, k == TW(13.0), TW(0.9999956972205363), TW(5.224680575187069e-17), TW(2.9189025383581702e-05));
    t = erf_pick64_(t, k == TW(14.0), TW(0.9999992569016276), TW(4.9647279187212204e-17), TW(5.399426777384783e-06));
    t = erf_pick64_(t, k == TW(15.0), TW(0.9999998862727434), TW(4.2276182391829615e-17), TW(8.814321912318039e-07));
    t = erf_pick64_(t, k == TW(16.0), TW(0.9999999845827421), TW(1.44826531920025e-17), TW(1.2698234671866558e-07));
    t = erf_pick64_(t, k == TW(17.0), TW(0.9999999981494259), TW(9.86675034192752e-19), TW(1.6143993719507412e-08));
    t = erf_pick64_(t, k == TW(18.0), TW(0.9999999998033839), TW(1.2614727975054947e-17), TW(1.81130589590869e-09));
    t = erf_pick64_(t, k == TW(19.0), TW(0.9999999999815149), TW(5.461622108299497e-17), TW(1.7934357034341337e-10));
    t = erf_pick64_(t, k == TW(20.0), TW(0.9999999999984626), TW(-2.294992711807301e-17), TW(1.5670866531017336e-11));
    t = erf_pick64_(t, k == TW(21.0), TW(0.9999999999998869), TW(2.859354043191264e-17), TW(1.2084074716006755e-12));
    t = erf_pick64_(t, k == TW(22.0), TW(0.9999999999999927), TW(-3.03759554483649e-17), TW(8.223316045262922e-14));
    t = erf_pick64_(t, k == TW(23.0), TW(0.9999999999999996), TW(2.0875548107488853e-17), TW(4.938485140964219e-15));
    t = erf_pick64_(t, k == TW(24.0), TW(1.0), TW(-2.1519736712498913e-17), TW(2.617301239249265e-16));
    return t;
}

fn erf64_(x: TW) -> TW {
    let a = min(abs(x), TW(6.0));
    // Below 3/8 the series at 0 (no cancellation between erf(1/4) and the integral).
    let k = select(floor(a * TW(4.0) + TW(0.5)), TW(0.0), a < TW(0.375));
    let c = k * TW(0.25);
    let h = a - c;
    let t = erf_table64_(k);
    let m2c = TW(-2.0) * c;
    var bp = TW(0.0);
    var bc = TW(1.0);
    var hp = h;
    var s = TW(0.0);
    for (var j = 1; j <= 22; j++) {
        let bn = (m2c * bc - TW(2.0) * bp) / TW(f64(j));
        bp = bc;
        bc = bn;
        hp = hp * h;
        s = s + bn * hp / TW(f64(j + 1));
    }
    s = h + s;
    // Near 0 the whole value is 2/sqrt(pi) s: its low part too.
    let wl = select(TW(0.0), TW(1.533545961316588e-17), k == TW(0.0));
    let v = t.h + (t.l + (t.w * s + wl * s));
    let r = select(select(v, -v, x < TW(0.0)), x, x == TW(0.0));
    return select(r, x, !(x == x));
}

// erfc, accurate in relative terms into the tail: below 1/4, 1 - erf(x) (at most 0.28
// cancels; below 0 it is 1 + erf(|x|)); above, e^(-(h + l)) for x^2 = h + l exact, as a
// mantissa and an exponent (exp_parts64_), times g = erfc(x) e^(x^2) from the
// interpolants below, scaled with one rounding (subnormal results too). 0 past 27.3 (below
// half the least subnormal), 2 at -inf, NaN stays NaN.
fn erfc64_(x: TW) -> TW {
    let near = TW(1.0) - erf64_(x);
    let a = clamp(x, TW(0.25), TW(27.3));
    let sq = two_prod64_(a, a);
    let p = exp_parts64_(-sq.hi, -sq.lo);
    let tail = scale64_(p.hi * erfc_g64_(a), p.lo);
    let r = select(select(tail, near, x < TW(0.25)), TW(0.0), x > TW(27.3));
    return select(r, x, !(x == x));
}

// g(x) = erfc(x) e^(x^2) for x in [0.25, 27.3], generated as erfc_g32_ is (relative error
// of the interpolants below 1.5e-17).
fn erfc_g64_(x: TW) -> TW {
    var k = TW(0.0);
    k = select(k, TW(1.0), x >= TW(0.75));
    k = select(k, TW(2.0), x >= TW(1.5));
    k = select(k, TW(3.0), x >= TW(3.0));
    k = select(k, TW(4.0), x >= TW(6.0));
    k = select(k, TW(5.0), x >= TW(10.0));
    k = select(k, TW(6.0), x >= TW(16.0));
    let u = (x - select(select(select(select(select(select(TW(0.5), TW(1.125), k == TW(1.0)), TW(2.25), k == TW(2.0)), TW(4.5), k == TW(3.0)), TW(8.0), k == TW(4.0)), TW(13.0), k == TW(5.0)), TW(21.65), k == TW(6.0))) * select(select(select(select(select(select(TW(4.0), TW(2.6666666666666665), k == TW(1.0)), TW(1.3333333333333333), k == TW(2.0)), TW(0.6666666666666666), k == TW(3.0)), TW(0.5), k == TW(4.0)), TW(0.3333333333333333), k == TW(5.0)), TW(0.17699115044247787), k == TW(6.0));
    var p = select(select(select(select(select(select(TW(-1.6346836305265743e-19), TW(-1.1914595846290088e-17), k == TW(1.0)), TW(-3.0478317456635865e-14), k == TW(2.0)), TW(-3.799301085465978e-12), k == TW(3.0)), TW(-7.870902291240995e-14), k == TW(4.0)), TW(-2.4447973038665432e-14), k == TW(5.0)), TW(-2.4043429847053373e-13), k == TW(6.0));
    p = fma(p, u, select(select(select(select(select(select(TW(2.216716833196477e-18), TW(1.191439716166959e-16), k == TW(1.0)), TW(1.81932180101889e-13), k == TW(2.0)), TW(1.559131038017047e-11), k == TW(3.0)), TW(3.588152298266756e-13), k == TW(4.0)), TW(1.1200028872744025e-13), k == TW(5.0)), TW(9.411877292374187e-13), k == TW(6.0)));
    p = fma(p, u, select(select(select(select(select(select(TW(-2.852998929553387e-17), TW(-1.1067714703734333e-15), k == TW(1.0)), TW(-9.155372836608336e-13), k == TW(2.0)), TW(-4.432659616480349e-11), k == TW(3.0)), TW(-1.2334785294122788e-12), k == TW(4.0)), TW(-3.895667466572115e-13), k == TW(5.0)), TW(-2.478454985989239e-12), k == TW(6.0)));
    p = fma(p, u, select(select(select(select(select(select(TW(3.6776434497647724e-16), TW(1.0570322624577438e-14), k == TW(1.0)), TW(5.25058612640922e-12), k == TW(2.0)), TW(1.7650511943055457e-10), k == TW(3.0)), TW(5.543605940141731e-12), k == TW(4.0)), TW(1.7728935228858713e-12), k == TW(5.0)), TW(9.673158094457932e-12), k == TW(6.0)));
    p = fma(p, u, select(select(select(select(select(select(TW(-4.617060603425324e-15), TW(-9.871868388813467e-14), k == TW(1.0)), TW(-2.987899137209373e-11), k == TW(2.0)), TW(-7.351831401563509e-10), k == TW(3.0)), TW(-2.5611340946480272e-11), k == TW(4.0)), TW(-8.307394664234914e-12), k == TW(5.0)), TW(-4.026978665866619e-11), k == TW(6.0)));
    p = fma(p, u, select(select(select(select(select(select(TW(5.632401588352639e-14), TW(8.981984831551781e-13), k == TW(1.0)), TW(1.650800160233186e-10), k == TW(2.0)), TW(2.868645559181467e-09), k == TW(3.0)), TW(1.1390534440590352e-10), k == TW(4.0)), TW(3.762597182673001e-11), k == TW(5.0)), TW(1.569005738616452e-10), k == TW(6.0)));
    p = fma(p, u, select(select(select(select(select(select(TW(-6.666937610472779e-13), TW(-7.959473098248374e-12), k == TW(1.0)), TW(-8.933009822571711e-10), k == TW(2.0)), TW(-1.1012856695789538e-08), k == TW(3.0)), TW(-5.026949414092821e-10), k == TW(4.0)), TW(-1.6966809341745983e-10), k == TW(5.0)), TW(-6.076957799321212e-10), k == TW(6.0)));
    p = fma(p, u, select(select(select(select(select(select(TW(7.64166077303826e-12), TW(6.858801466030223e-11), k == TW(1.0)), TW(4.733442131241577e-09), k == TW(2.0)), TW(4.192675211805192e-08), k == TW(3.0)), TW(2.2097310285634352e-09), k == TW(4.0)), TW(7.644402717685733e-10), k == TW(5.0)), TW(2.362836672639768e-09), k == TW(6.0)));
    p = fma(p, u, select(select(select(select(select(select(TW(-8.461947367356202e-11), TW(-5.736686556471822e-10), k == TW(1.0)), TW(-2.452313392118715e-08), k == TW(2.0)), TW(-1.5762533999782487e-07), k == TW(3.0)), TW(-9.656468610600188e-09), k == TW(4.0)), TW(-3.435325118390686e-09), k == TW(5.0)), TW(-9.17991187000324e-09), k == TW(6.0)));
    p = fma(p, u, select(select(select(select(select(select(TW(9.028383916286081e-10), TW(4.647428369934234e-09), k == TW(1.0)), TW(1.2405993201102888e-07), k == TW(2.0)), TW(5.847028791800302e-07), k == TW(3.0)), TW(4.194070398748721e-08), k == TW(4.0)), TW(1.539606779435832e-08), k == TW(5.0)), TW(3.562033496679109e-08), k == TW(6.0)));
    p = fma(p, u, select(select(select(select(select(select(TW(-9.252190466152231e-09), TW(-3.637910361088444e-08), k == TW(1.0)), TW(-6.119614595876264e-07), k == TW(2.0)), TW(-2.1394021453960187e-06), k == TW(3.0)), TW(-1.8104017134245873e-07), k == TW(4.0)), TW(-6.881556612490967e-08), k == TW(5.0)), TW(-1.380727777525586e-07), k == TW(6.0)));
    p = fma(p, u, select(select(select(select(select(select(TW(9.073145225890166e-08), TW(2.7437920826752587e-07), k == TW(1.0)), TW(2.9386391538705836e-06), k == TW(2.0)), TW(7.717538053863509e-06), k == TW(3.0)), TW(7.765864801053323e-07), k == TW(4.0)), TW(3.06754145793725e-07), k == TW(5.0)), TW(5.346544852591821e-07), k == TW(6.0)));
    p = fma(p, u, select(select(select(select(select(select(TW(-8.476206180808514e-07), TW(-1.987268940358316e-06), k == TW(1.0)), TW(-1.3711609160972556e-05), k == TW(2.0)), TW(-2.743142179703869e-05), k == TW(3.0)), TW(-3.3100161895771194e-06), k == TW(4.0)), TW(-1.363675772941504e-06), k == TW(5.0)), TW(-2.068184155661242e-06), k == TW(6.0)));
    p = fma(p, u, select(select(select(select(select(select(TW(7.5020541807322e-06), TW(1.3766370967386106e-05), k == TW(1.0)), TW(6.203181705923726e-05), k == TW(2.0)), TW(9.60143347758442e-05), k == TW(3.0)), TW(1.4016651256635718e-05), k == TW(4.0)), TW(6.045596861165176e-06), k == TW(5.0)), TW(7.991982914360032e-06), k == TW(6.0)));
    p = fma(p, u, select(select(select(select(select(select(TW(-6.247086297399207e-05), TW(-9.076002875107539e-05), k == TW(1.0)), TW(-0.0002714121303982912), k == TW(2.0)), TW(-0.0003307141044022273), k == TW(3.0)), TW(-5.896286918082313e-05), k == TW(4.0)), TW(-2.6727904750736285e-05), k == TW(5.0)), TW(-3.0850903700157564e-05), k == TW(6.0)));
    p = fma(p, u, select(select(select(select(select(select(TW(0.00048504032662312964), TW(0.0005659626668907924), k == TW(1.0)), TW(0.0011450727488397977), k == TW(2.0)), TW(0.0011201614260418374), k == TW(3.0)), TW(0.00024636396516367293), k == TW(4.0)), TW(0.00011783611953995682), k == TW(5.0)), TW(0.0001189673620980664), k == TW(6.0)));
    p = fma(p, u, select(select(select(select(select(select(TW(-0.003468915172205942), TW(-0.0033113996229137176), k == TW(1.0)), TW(-0.004641494381623145), k == TW(2.0)), TW(-0.003727944394165681), k == TW(3.0)), TW(-0.0010223076538936004), k == TW(4.0)), TW(-0.0005180476026597563), k == TW(5.0)), TW(-0.0004582821649177258), k == TW(6.0)));
    p = fma(p, u, select(select(select(select(select(select(TW(0.022459120796352032), TW(0.017983445686743534), k == TW(1.0)), TW(0.017995852918522275), k == TW(2.0)), TW(0.012179532227877902), k == TW(3.0)), TW(0.004212412598156347), k == TW(4.0)), TW(0.0022710587492011714), k == TW(5.0)), TW(0.0017635258780592435), k == TW(6.0)));
    p = fma(p, u, select(select(select(select(select(select(TW(-0.12817220572564667), TW(-0.08927193303797692), k == TW(1.0)), TW(-0.06636487710656187), k == TW(2.0)), TW(-0.039023892946409726), k == TW(3.0)), TW(-0.017233015762835462), k == TW(4.0)), TW(-0.009927595846981694), k == TW(5.0)), TW(-0.006779115591394018), k == TW(6.0)));
    return select(select(select(select(select(select(TW(0.6156903441929259), TW(0.3956980795529959), k == TW(1.0)), TW(0.23108725873039188), k == TW(2.0)), TW(0.12248480427384141), k == TW(3.0)), TW(0.06998516620088092), k == TW(4.0)), TW(0.043271921864609694), k == TW(5.0)), TW(0.026031855049145708), k == TW(6.0)) + fma(p, u, select(select(select(select(select(select(TW(-2.3121758708706433e-17), TW(-5.777677282900679e-18), k == TW(1.0)), TW(-5.757206304823484e-18), k == TW(2.0)), TW(5.240982788845611e-18), k == TW(3.0)), TW(3.2535825791976846e-18), k == TW(4.0)), TW(-1.5996227606426542e-18), k == TW(5.0)), TW(7.340704446394711e-19), k == TW(6.0)));
}
