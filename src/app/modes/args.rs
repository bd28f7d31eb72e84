//! Arguments of script steps (`verb:arg`), shared by the shell's steps and
//! the modes' own.

/// `arg`, which must not be empty.
pub fn need(verb: &str, arg: &str, what: &str) -> Result<String, String> {
    if arg.is_empty() {
        Err(format!("script step `{verb}` needs {what}"))
    } else {
        Ok(arg.to_string())
    }
}

/// `on`/`true`/nothing, or `off`/`false`.
pub fn on_off(verb: &str, arg: &str) -> Result<bool, String> {
    match arg {
        "" | "on" | "true" => Ok(true),
        "off" | "false" => Ok(false),
        _ => Err(format!("script step `{verb}` takes on or off, not {arg:?}")),
    }
}

pub fn number<T: std::str::FromStr>(verb: &str, arg: &str, what: &str) -> Result<T, String> {
    arg.parse()
        .map_err(|_| format!("{verb} needs {what}, not {arg:?}"))
}

/// `x,y,z` of finite numbers.
pub fn vec3(verb: &str, arg: &str) -> Result<glam::Vec3, String> {
    let v: Vec<f32> = arg
        .split(',')
        .map(|c| c.trim().parse::<f32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("{verb} needs x,y,z, not {arg:?}"))?;
    match v[..] {
        [x, y, z] if v.iter().all(|c| c.is_finite()) => Ok(glam::Vec3::new(x, y, z)),
        _ => Err(format!("{verb} needs x,y,z, not {arg:?}")),
    }
}
